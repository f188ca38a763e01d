#include "reconcile/retry_board.h"

#include <gtest/gtest.h>

namespace tpslurm::reconcile {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(RetryBoardTest, TriesAreSpacedDoublingFromFiveSecondsToFiveMinutes) {
  ManualClock clock(SystemClock().now());
  RetryBoard board(clock);
  EXPECT_FALSE(board.wait_left("t1", "identify").has_value()) << "never failed: due now";
  EXPECT_EQ(board.failed("t1", "identify"), 1);
  EXPECT_EQ(board.wait_left("t1", "identify"), milliseconds(5000));
  EXPECT_FALSE(board.wait_left("t1", "release").has_value()) << "another step of the attempt is its own";
  EXPECT_FALSE(board.wait_left("t2", "identify").has_value()) << "another attempt is its own";
  clock.advance(seconds(5));
  EXPECT_FALSE(board.wait_left("t1", "identify").has_value());
  EXPECT_EQ(board.failed("t1", "identify"), 2);
  EXPECT_EQ(board.wait_left("t1", "identify"), milliseconds(10000));
  for (int i = 0; i < 10; ++i) board.failed("t1", "identify");
  EXPECT_EQ(board.wait_left("t1", "identify"), milliseconds(300000));
}

TEST(RetryBoardTest, AWallClockStepChangesNothingAndForgetMakesItDue) {
  ManualClock clock(SystemClock().now());
  RetryBoard board(clock);
  board.failed("t1", "identify");
  board.failed("t1", "forgotten");
  board.failed("t10", "identify");
  clock.set(clock.now() + std::chrono::hours(3));  // the wall clock only
  EXPECT_EQ(board.wait_left("t1", "identify"), milliseconds(5000));
  board.forget("t1", "identify");
  EXPECT_FALSE(board.wait_left("t1", "identify").has_value());
  board.forget_attempt("t1");
  EXPECT_FALSE(board.wait_left("t1", "forgotten").has_value());
  EXPECT_TRUE(board.wait_left("t10", "identify").has_value()) << "t10 is not t1's";
  EXPECT_EQ(board.size(), 1u);
}

}  // namespace
}  // namespace tpslurm::reconcile
