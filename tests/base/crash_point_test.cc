#include "base/crash_point.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace tpslurm {
namespace {

#ifdef TUNEPLANE_CRASH_POINTS

TEST(CrashPointTest, ExitsAtTheNamedPoint) {
  EXPECT_EXIT(
      {
        setenv("TUNEPLANE_CRASH_AT", "a,submit.after_intent,b", 1);
        crash_point("submit.after_intent");
      },
      testing::ExitedWithCode(kCrashExitCode), "");
}

TEST(CrashPointTest, PassesOtherPoints) {
  setenv("TUNEPLANE_CRASH_AT", "submit.after_intent", 1);
  crash_point("submit.after_send");
  crash_point("submit.after");
  unsetenv("TUNEPLANE_CRASH_AT");
  crash_point("submit.after_intent");
  SUCCEED();
}

#else
#error "the tests are built with TUNEPLANE_CRASH_POINTS (presets dev and asan)"
#endif

}  // namespace
}  // namespace tpslurm
