// Output: how the soak writes its lines ("soak: ..." on stdout, flushed at once so that a
// reader of a pipe sees each as it comes) and formats its figures.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace tpslurm::soak {

using Steady = std::chrono::steady_clock;

inline double seconds_since(Steady::time_point t) { return std::chrono::duration<double>(Steady::now() - t).count(); }

inline void say(const std::string& line) {
  std::printf("soak: %s\n", line.c_str());
  std::fflush(stdout);
}

inline std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

inline std::string mib(long kib) { return fixed(static_cast<double>(kib) / 1024.0, 1); }

}  // namespace tpslurm::soak
