#include "base/clock.h"

#include <ctime>

namespace tpslurm {

std::int64_t unix_seconds(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

TimePoint from_unix_seconds(std::int64_t seconds) { return TimePoint(std::chrono::seconds(seconds)); }

std::string format_utc(TimePoint t) {
  const std::time_t seconds = static_cast<std::time_t>(unix_seconds(t));
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char text[32];
  const std::size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return std::string(text, n);
}

}  // namespace tpslurm
