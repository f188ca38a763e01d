#include "storage/work_slice.h"

#include <gtest/gtest.h>

namespace tpslurm::storage {
namespace {

using namespace std::chrono_literals;

TEST(WorkSliceTest, IsSpentAtItsBytes) {
  ManualClock clock(TimePoint{});
  WorkSlice slice(&clock, {100, 10, 1s});
  slice.add_bytes(99);
  EXPECT_FALSE(slice.spent());
  slice.add_bytes(1);
  EXPECT_TRUE(slice.spent());
  EXPECT_EQ(slice.bytes(), 100u);
}

TEST(WorkSliceTest, IsSpentAtItsEntries) {
  ManualClock clock(TimePoint{});
  WorkSlice slice(&clock, {100, 10, 1s});
  slice.add_entries(9);
  EXPECT_FALSE(slice.spent());
  slice.add_entries();
  EXPECT_TRUE(slice.spent());
  EXPECT_EQ(slice.entries(), 10u);
}

TEST(WorkSliceTest, IsSpentAtItsTimeOnTheSteadyClock) {
  ManualClock clock(TimePoint{});
  WorkSlice slice(&clock, {100, 10, 250ms});
  clock.set(TimePoint{} + 24h);  // a step of the wall clock is no time spent
  EXPECT_FALSE(slice.spent());
  clock.advance(249ms);
  EXPECT_FALSE(slice.spent());
  clock.advance(1ms);
  EXPECT_TRUE(slice.spent());
}

TEST(WorkSliceTest, AStopRequestSpendsIt) {
  ManualClock clock(TimePoint{});
  std::stop_source stop;
  WorkSlice slice(&clock, {}, stop.get_token());
  EXPECT_FALSE(slice.stop_requested());
  stop.request_stop();
  EXPECT_TRUE(slice.stop_requested());
  EXPECT_TRUE(slice.spent());
}

TEST(WorkSliceTest, AnUnlimitedSliceEndsOnlyOnAStop) {
  std::stop_source stop;
  WorkSlice slice = WorkSlice::unlimited(stop.get_token());
  slice.add_bytes(std::uint64_t{1} << 50);
  slice.add_entries(std::uint64_t{1} << 40);
  EXPECT_FALSE(slice.spent());
  stop.request_stop();
  EXPECT_TRUE(slice.spent());
}

}  // namespace
}  // namespace tpslurm::storage
