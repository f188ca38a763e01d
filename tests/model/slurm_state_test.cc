#include "model/slurm_state.h"

#include <gtest/gtest.h>

namespace tpslurm::model {
namespace {

TEST(SlurmStateTest, ReadsV0045Lists) {
  const SlurmState running = SlurmState::from_list({"RUNNING"});
  EXPECT_EQ(running.base, SlurmBaseState::running);
  EXPECT_FALSE(running.is_terminal());

  const SlurmState completing = SlurmState::from_list({"COMPLETED", "COMPLETING"});
  EXPECT_EQ(completing.base, SlurmBaseState::completed);
  EXPECT_TRUE(completing.base_is_final());
  EXPECT_FALSE(completing.is_terminal());
  EXPECT_TRUE(completing.holds_resources());
  EXPECT_EQ(completing.to_string(), "COMPLETED+COMPLETING");

  const SlurmState done = SlurmState::from_list({"CANCELLED"});
  EXPECT_TRUE(done.is_terminal());
  EXPECT_FALSE(done.holds_resources());
}

TEST(SlurmStateTest, StageOutHoldsResources) {
  const SlurmState state = SlurmState::from_list({"FAILED", "STAGE_OUT"});
  EXPECT_TRUE(state.holds_resources());
  EXPECT_FALSE(state.is_terminal());
}

TEST(SlurmStateTest, RequeueFlagsAreNotTerminal) {
  EXPECT_FALSE(SlurmState::from_list({"PENDING", "REQUEUED"}).is_terminal());
  EXPECT_FALSE(SlurmState::from_list({"NODE_FAIL", "REQUEUE_HOLD"}).is_terminal());
  EXPECT_TRUE(SlurmState::from_list({"NODE_FAIL"}).is_terminal());
}

TEST(SlurmStateTest, V0038FlagReplacesTheBase) {
  const SlurmState state = SlurmState::from_v0038("COMPLETING");
  EXPECT_FALSE(state.base_known);
  EXPECT_TRUE(state.has(SlurmStateFlag::completing));
  EXPECT_FALSE(state.is_terminal());
  EXPECT_TRUE(state.holds_resources());
  EXPECT_EQ(state.to_string(), "?+COMPLETING");
  const SlurmState timeout = SlurmState::from_v0038("TIMEOUT");
  EXPECT_TRUE(timeout.is_terminal());
  EXPECT_EQ(timeout.base, SlurmBaseState::timeout);
}

TEST(SlurmStateTest, KeepsUnknownWords) {
  const SlurmState state = SlurmState::from_list({"RUNNING", "NEW_FLAG_2027"});
  EXPECT_EQ(state.unknown, std::vector<std::string>{"NEW_FLAG_2027"});
  EXPECT_EQ(state.to_string(), "RUNNING+NEW_FLAG_2027");
  const SlurmState none = SlurmState::from_list({});
  EXPECT_FALSE(none.base_known);
  EXPECT_FALSE(none.is_terminal());
}

TEST(SlurmStateTest, EveryBaseAndFlagNameRoundTrips) {
  for (const char* word : {"PENDING", "RUNNING", "SUSPENDED", "COMPLETED", "CANCELLED", "FAILED", "TIMEOUT",
                           "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY"}) {
    ASSERT_TRUE(parse_base_state(word).has_value()) << word;
    EXPECT_EQ(to_string(*parse_base_state(word)), word);
  }
  for (const char* word : {"LAUNCH_FAILED", "REQUEUED", "REQUEUE_HOLD", "SPECIAL_EXIT", "RESIZING", "CONFIGURING",
                           "COMPLETING", "STOPPED", "RECONFIG_FAIL", "POWER_UP_NODE", "REVOKED", "REQUEUE_FED",
                           "RESV_DEL_HOLD", "SIGNALING", "STAGE_OUT", "EXPEDITING"}) {
    ASSERT_TRUE(parse_state_flag(word).has_value()) << word;
    EXPECT_EQ(to_string(*parse_state_flag(word)), word);
  }
}

TEST(SlurmStateTest, TheJournalsTextReadsBackAsTheSameState) {
  for (const SlurmState& state :
       {SlurmState::from_list({"COMPLETED", "COMPLETING"}), SlurmState::from_v0038("COMPLETING"),
        SlurmState::from_list({"RUNNING", "NEW_FLAG_2027"}), SlurmState::from_list({"FAILED"}), SlurmState{}}) {
    EXPECT_EQ(SlurmState::from_text(state.to_string()), state) << state.to_string();
  }
  EXPECT_TRUE(SlurmState::from_text("CANCELLED").is_terminal());
  EXPECT_FALSE(SlurmState::from_text("CANCELLED+COMPLETING").is_terminal());
  EXPECT_FALSE(SlurmState::from_text("").base_known);
}

}  // namespace
}  // namespace tpslurm::model
