// Crash points: named places where a test build can be told to die on the spot.
//
// `crash_point("submit.after_intent")` calls _exit(kCrashExitCode) when the build has
// TUNEPLANE_CRASH_POINTS and the environment variable TUNEPLANE_CRASH_AT names this point
// (a comma-separated list is allowed). Crash tests run the real binary with it set and
// then check that the next run recovers. Release builds compile the hook to nothing.
#pragma once

#include <string_view>

namespace tpslurm {

inline constexpr int kCrashExitCode = 86;

#ifdef TUNEPLANE_CRASH_POINTS
void crash_point(std::string_view name);
#else
inline void crash_point(std::string_view) {}
#endif

}  // namespace tpslurm
