// ReasonReads: which pending attempts a poll reads for why they wait, and when the full
// listing serves instead (reconcile/reason_reads.h).
#include "reconcile/reason_reads.h"

#include <gtest/gtest.h>

namespace tpslurm::reconcile {
namespace {

using std::chrono::seconds;

const SteadyPoint kStart{std::chrono::hours(1)};

std::vector<PendingWait> waits(int count, bool explained, const std::string& prefix = "t") {
  std::vector<PendingWait> out;
  for (int i = 0; i < count; ++i) out.push_back({prefix + std::to_string(i), explained});
  return out;
}

TEST(ReasonReadsTest, AnAttemptNeverReadIsReadAtOnce) {
  ReasonReads reads;
  const ReasonPlan plan = reads.plan(waits(2, true), kStart);
  EXPECT_FALSE(plan.listing);
  EXPECT_EQ(plan.alone, (std::set<std::string>{"t0", "t1"}));
}

TEST(ReasonReadsTest, WithoutAReasonItIsReadAgainAfterTwentySecondsWithOneAfterAMinute) {
  ReasonReads reads;
  const std::vector<PendingWait> pending{{"none", false}, {"resources", true}};
  reads.read("none", kStart);
  reads.read("resources", kStart);
  EXPECT_TRUE(reads.plan(pending, kStart + seconds(19)).alone.empty());
  EXPECT_EQ(reads.plan(pending, kStart + seconds(20)).alone, std::set<std::string>{"none"});
  reads.read("none", kStart + seconds(20));
  EXPECT_TRUE(reads.plan(pending, kStart + seconds(39)).alone.empty());
  EXPECT_EQ(reads.plan(pending, kStart + seconds(60)).alone, (std::set<std::string>{"none", "resources"}));
}

TEST(ReasonReadsTest, MoreDueThanAPollReadsAloneIsOneListingAMinute) {
  ReasonReads reads;
  const std::vector<PendingWait> many = waits(static_cast<int>(kReadsPerPoll) + 1, false);
  ReasonPlan plan = reads.plan(many, kStart);
  EXPECT_TRUE(plan.listing);
  EXPECT_TRUE(plan.alone.empty());
  reads.listed(kStart);
  for (const auto& wait : many) reads.read(wait.token, kStart);

  // Twenty seconds on, all are due again, but the last listing is too recent: the longest
  // unread are read alone, a poll's worth.
  reads.read("t0", kStart + seconds(5));
  plan = reads.plan(many, kStart + seconds(25));
  EXPECT_FALSE(plan.listing);
  EXPECT_EQ(plan.alone.size(), kReadsPerPoll);
  EXPECT_EQ(plan.alone.count("t0"), 0u) << "t0 was read last: it waits";

  EXPECT_TRUE(reads.plan(many, kStart + kExplainedEvery).listing);
}

TEST(ReasonReadsTest, AFewDueAreReadAloneWhateverTheListingsAge) {
  ReasonReads reads;
  EXPECT_EQ(reads.plan(waits(static_cast<int>(kReadsPerPoll), false), kStart).alone.size(), kReadsPerPoll);
}

TEST(ReasonReadsTest, AnAttemptNoLongerPendingIsForgotten) {
  ReasonReads reads;
  reads.read("gone", kStart);
  reads.read("kept", kStart);
  reads.keep_only({"kept"});
  const std::vector<PendingWait> pending{{"gone", true}, {"kept", true}};
  EXPECT_EQ(reads.plan(pending, kStart + seconds(1)).alone, std::set<std::string>{"gone"})
      << "forgotten: pending again, it is read at once";
}

}  // namespace
}  // namespace tpslurm::reconcile
