// ServerClock keeps the earliest time the server's clock can show: never later than the truth.
#include <gtest/gtest.h>

#include "slurm/server_clock.h"

namespace tpslurm::slurm {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(ServerClockTest, KnowsNothingBeforeAnObservation) {
  ManualClock local(from_unix_seconds(1796040000));
  ServerClock clock(local);
  EXPECT_FALSE(clock.offset());
  EXPECT_FALSE(clock.earliest_now());
  EXPECT_FALSE(clock.observed_at());
}

// The server stamped 1796039034 (whole seconds) at some moment before the answer arrived at
// local 1796040000.250: its clock is at least 966.25 s behind.
TEST(ServerClockTest, TakesTheLowestOffsetTheObservationAllows) {
  ManualClock local(from_unix_seconds(1796040000) + milliseconds(250));
  ServerClock clock(local);
  clock.observe(1796039034, local.now());
  EXPECT_EQ(clock.offset(), milliseconds(-966250));
  local.advance(seconds(10));
  EXPECT_EQ(clock.earliest_now(), from_unix_seconds(1796039044));
  EXPECT_EQ(clock.observed_at(), from_unix_seconds(1796040000) + milliseconds(250));
}

TEST(ServerClockTest, TheLatestObservationWins) {
  ManualClock local(from_unix_seconds(1796040000));
  ServerClock clock(local);
  clock.observe(1796040100, local.now());
  local.advance(seconds(60));
  clock.observe(1796040060, local.now());  // the server's clock was stepped back
  EXPECT_EQ(clock.offset(), seconds(0));
}

}  // namespace
}  // namespace tpslurm::slurm
