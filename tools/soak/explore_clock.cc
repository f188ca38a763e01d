#include "explore_clock.h"

#include <glob.h>

#include <cstdio>
#include <fstream>

namespace tpslurm::soak {

std::string FakedClock::library() {
  glob_t found{};
  std::string path;
  if (::glob("/usr/lib/*/faketime/libfaketimeMT.so.1", 0, nullptr, &found) == 0 && found.gl_pathc > 0) {
    path = found.gl_pathv[0];
  }
  ::globfree(&found);
  return path;
}

Status FakedClock::set(long offset_s) {
  const std::string temporary = m_file + ".new";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << (offset_s < 0 ? "" : "+") << offset_s << "\n";
    if (!out) return permanent("cannot write " + temporary);
  }
  if (std::rename(temporary.c_str(), m_file.c_str()) != 0) return permanent("cannot put " + m_file + " in place");
  m_offset_s = offset_s;
  return {};
}

Environment FakedClock::environment(const std::string& library) const {
  return {{"LD_PRELOAD", library},
          {"FAKETIME_TIMESTAMP_FILE", m_file},
          {"FAKETIME_NO_CACHE", "1"},
          {"FAKETIME_DONT_FAKE_MONOTONIC", "1"},
          {"ASAN_OPTIONS", "verify_asan_link_order=0"}};
}

}  // namespace tpslurm::soak
