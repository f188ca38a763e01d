// ElapsedBoard: the wall clock's word at first sight, the monotonic clock's after it — so a
// step of the wall clock while the daemon runs neither shortens nor stretches a measure.
#include "reconcile/elapsed_board.h"

#include <gtest/gtest.h>

namespace tpslurm::reconcile {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

class ElapsedBoardTest : public ::testing::Test {
 protected:
  ManualClock clock{from_unix_seconds(1'800'000'000)};
  ElapsedBoard board{clock};
  TimePoint start = clock.now();
};

TEST_F(ElapsedBoardTest, FirstSightTakesTheWallClocksWordAndTimePassingAddsToIt) {
  clock.advance(minutes(5));  // the state began before this process asked
  EXPECT_EQ(board.since("blocked:t1", start), minutes(5));
  clock.advance(minutes(3));
  EXPECT_EQ(board.since("blocked:t1", start), minutes(8));
}

TEST_F(ElapsedBoardTest, AStepOfTheWallClockAfterFirstSightCountsForNothing) {
  EXPECT_EQ(board.since("pending:t1", start), seconds(0));
  clock.set(clock.now() + hours(6));
  EXPECT_EQ(board.since("pending:t1", start), seconds(0)) << "forward: not six hours";
  clock.set(clock.now() - hours(12));
  clock.advance(minutes(2));
  EXPECT_EQ(board.since("pending:t1", start), minutes(2)) << "back: the two minutes that passed, not less";
}

TEST_F(ElapsedBoardTest, AStartInTheFutureOfTheWallClockIsNoTimeAtAll) {
  EXPECT_EQ(board.since("blocked:t1", start + hours(1)), seconds(0));
  clock.advance(seconds(30));
  EXPECT_EQ(board.since("blocked:t1", start + hours(1)), seconds(30));
}

TEST_F(ElapsedBoardTest, KeysAreMeasuredApart) {
  (void)board.since("blocked:t1", start);
  clock.advance(minutes(1));
  EXPECT_EQ(board.since("pending:t1", start), minutes(1)) << "first sight of another key: the wall clock";
  clock.set(clock.now() + hours(1));
  EXPECT_EQ(board.since("blocked:t1", start), minutes(1));
  EXPECT_EQ(board.since("blocked:t2", start), hours(1) + minutes(1));
}

TEST_F(ElapsedBoardTest, WhatWasNotAskedAboutForTheIdleTimeIsForgotten) {
  (void)board.since("blocked:t1", start);
  (void)board.since("blocked:t2", start);
  clock.advance(hours(2));
  (void)board.since("blocked:t2", start);
  board.forget_idle(hours(1));
  EXPECT_EQ(board.size(), 1U);
  clock.set(clock.now() + hours(5));
  EXPECT_EQ(board.since("blocked:t1", start), hours(7)) << "forgotten: first sight again";
  EXPECT_EQ(board.since("blocked:t2", start), hours(2));
}

}  // namespace
}  // namespace tpslurm::reconcile
