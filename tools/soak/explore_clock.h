// FakedClock: serve's wall clock made steppable from outside, with Debian's libfaketime
// (tools/packages: libfaketime) preloaded into serve alone. The project has no hook to step the
// daemon's clock in production and adds none: the library reads the offset from a file on every
// call (FAKETIME_TIMESTAMP_FILE, FAKETIME_NO_CACHE=1), and leaves the monotonic clock alone
// (FAKETIME_DONT_FAKE_MONOTONIC=1), so only the wall clock steps, as an NTP step or an
// operator's `date -s` does. libfaketimeMT: serve is multi-threaded. set() writes the offset
// (renamed into place: the library never reads half of it). Not thread-safe.
#pragma once

#include <string>

#include "base/result.h"
#include "process.h"

namespace tpslurm::soak {

class FakedClock {
 public:
  // The installed library's path; empty when libfaketime is not installed.
  static std::string library();

  explicit FakedClock(std::string file) : m_file(std::move(file)) {}
  // The wall clock `offset_s` seconds from the real one (0: the real time).
  Status set(long offset_s);
  long offset() const { return m_offset_s; }
  // What serve's environment gets: the preload and the library's settings, and ASan's leave to
  // load a library before its runtime (an ASan build refuses to start otherwise).
  Environment environment(const std::string& library) const;

 private:
  std::string m_file;
  long m_offset_s = 0;
};

}  // namespace tpslurm::soak
