#include "reconcile/intake_priority.h"

#include <gtest/gtest.h>

namespace tpslurm::reconcile {
namespace {

using std::chrono::milliseconds;

class IntakePriorityTest : public ::testing::Test {
 protected:
  SteadyPoint at(int ms) const { return m_start + milliseconds(ms); }
  IntakePriority intake;

 private:
  SteadyPoint m_start = std::chrono::steady_clock::now();
};

TEST_F(IntakePriorityTest, NothingNotedHoldsNothing) { EXPECT_FALSE(intake.holding_for(at(0)).has_value()); }

TEST_F(IntakePriorityTest, ABatchHoldsNewAttemptsUntilTheIntakeHasBeenQuietFor100Ms) {
  intake.noted(at(0));
  EXPECT_EQ(intake.holding_for(at(0)), milliseconds(100));
  EXPECT_EQ(intake.holding_for(at(60)), milliseconds(40));
  intake.noted(at(80));
  EXPECT_EQ(intake.holding_for(at(120)), milliseconds(60)) << "the next batch moves the end of the hold";
  EXPECT_FALSE(intake.holding_for(at(180)).has_value()) << "quiet for 100 ms: attempts may begin";
  EXPECT_FALSE(intake.holding_for(at(5000)).has_value());
}

TEST_F(IntakePriorityTest, AStreamThatNeverGoesQuietHoldsOneSecondInTwo) {
  // A batch every 50 ms for 4 s: the passes get their turn every other second.
  int held = 0;
  int free = 0;
  for (int ms = 0; ms < 4000; ms += 50) {
    intake.noted(at(ms));
    const auto left = intake.holding_for(at(ms + 10));
    if (left) {
      ++held;
      EXPECT_LT(ms % 2000, 1000) << ms;
    } else {
      ++free;
      EXPECT_GE(ms % 2000, 990) << ms;
    }
    if (ms == 950) {
      EXPECT_EQ(left, milliseconds(40)) << "a hold never reaches into the passes' turn";
    }
  }
  EXPECT_EQ(held, 40);
  EXPECT_EQ(free, 40);
}

TEST_F(IntakePriorityTest, AfterAQuietGapTheNextRunHoldsAFullSecondAgain) {
  for (int ms = 0; ms <= 1500; ms += 50) intake.noted(at(ms));
  EXPECT_FALSE(intake.holding_for(at(1510)).has_value()) << "the passes' turn";
  intake.noted(at(2000));  // 450 ms quiet: a new run
  EXPECT_EQ(intake.holding_for(at(2010)), milliseconds(90));
}

}  // namespace
}  // namespace tpslurm::reconcile
