#include "base/crash_point.h"

#ifdef TUNEPLANE_CRASH_POINTS

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace tpslurm {

void crash_point(std::string_view name) {
  const char* wanted = std::getenv("TUNEPLANE_CRASH_AT");
  if (wanted == nullptr) return;
  std::string_view list(wanted);
  while (!list.empty()) {
    const auto comma = list.find(',');
    if (list.substr(0, comma) == name) _exit(kCrashExitCode);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
}

}  // namespace tpslurm

#endif
