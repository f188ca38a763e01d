// StopCondition: one report when the condition starts and one when it clears, whatever the
// order in which the results of passes that ran side by side arrive.
#include "reconcile/stop_condition.h"

#include <gtest/gtest.h>

#include <sstream>

#include "config/logging.h"
#include "support/text_count.h"

namespace tpslurm::reconcile {
namespace {

using std::chrono::milliseconds;

constexpr std::string_view kStarted = "the journal cannot be written: nothing new is submitted until it clears";
constexpr std::string_view kCleared = "the journal cannot be written cleared";

using tpslurm::testing::count_of;

class StopConditionTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(config::configure_logging("info", model::LogFormat::text, log).ok()); }
  void TearDown() override { (void)config::configure_logging("warn", model::LogFormat::text); }

  StopCondition::Time at(int ms) const { return t0 + milliseconds(ms); }
  int started() const { return count_of(log.str(), kStarted); }
  int cleared() const { return count_of(log.str(), kCleared); }

  std::ostringstream log;
  StopCondition condition{"the journal cannot be written"};
  const Error full = transient("disk full");
  const StopCondition::Time t0 = std::chrono::steady_clock::now();
};

TEST_F(StopConditionTest, EveryPassOfAFailedGroupReportsItOnceTogether) {
  // Four passes began at 0-3 ms; their writes shared one commit, which failed at 10 ms.
  for (int pass = 0; pass < 4; ++pass) condition.fail(full, at(pass), at(10 + pass));
  EXPECT_TRUE(condition.active());
  EXPECT_EQ(started(), 1) << log.str();
}

TEST_F(StopConditionTest, ASuccessOfAPassThatBeganBeforeTheFailureDoesNotClearIt) {
  condition.fail(full, at(5), at(10));
  // This pass began before the failure was seen: its write may have come first.
  condition.succeed(at(3), at(11));
  EXPECT_TRUE(condition.active());
  // Another pass from before the failure fails too: the same condition, no second report.
  condition.fail(full, at(4), at(12));
  EXPECT_EQ(started(), 1) << log.str();
  EXPECT_EQ(cleared(), 0) << log.str();
}

TEST_F(StopConditionTest, APassThatBeganAfterTheFailureAndWroteClearsItOnce) {
  condition.fail(full, at(5), at(10));
  condition.succeed(at(20), at(30));
  EXPECT_FALSE(condition.active());
  condition.succeed(at(25), at(31));
  EXPECT_EQ(cleared(), 1) << log.str();
}

TEST_F(StopConditionTest, AFailureOfAPassThatBeganBeforeTheClearIsStale) {
  condition.fail(full, at(5), at(10));
  condition.succeed(at(20), at(30));
  // Began before the clear: its failure may be the old one.
  condition.fail(full, at(15), at(32));
  EXPECT_FALSE(condition.active());
  EXPECT_EQ(started(), 1) << log.str();
  // A pass begun after the clear that fails: the condition is back, and said so.
  condition.fail(full, at(40), at(45));
  EXPECT_TRUE(condition.active());
  EXPECT_EQ(started(), 2) << log.str();
}

}  // namespace
}  // namespace tpslurm::reconcile
