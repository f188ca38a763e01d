// The operator's patience follows serve's documented timing: a needed escape never comes before
// serve's spaced step could have moved the attempt on by itself.
#include <gtest/gtest.h>

#include "explore_operator.h"

namespace tpslurm::soak {
namespace {

TEST(ExploreOperator, PatienceCoversTheNextSpacedTryAfterTheCauseCleared) {
  // An attempt new in the drain: the first spacing (5 s), two poll intervals and a margin.
  EXPECT_DOUBLE_EQ(Operator::patience(0, ""), 5 + 10);
  // Failing since 40 s before the drain: tries at 0, 5, 15, 35, 75 s, so the next one is at most
  // 40 + 5 s after the drain began.
  EXPECT_DOUBLE_EQ(Operator::patience(40, "epilog_pending"), 45 + 10);
  // The spacing stops doubling at 5 minutes.
  EXPECT_DOUBLE_EQ(Operator::patience(3600, ""), 300 + 10);
  // Sealing asks slurmdbd four times, 35 s in all, before it journals no usage.
  EXPECT_DOUBLE_EQ(Operator::patience(0, "sealing"), 5 + 10 + 35);
}

}  // namespace
}  // namespace tpslurm::soak
