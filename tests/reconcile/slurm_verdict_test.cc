// The verdict on an attempt from its Slurm records: aggregation over het components, the end
// and its reason, anomalies, which failures are retried, v0.0.38's hidden base state.
#include "reconcile/slurm_verdict.h"

#include <gtest/gtest.h>

#include <utility>

namespace tpslurm::reconcile {
namespace {

using model::AttemptState;
using model::JobSnapshot;
using model::SlurmState;

JobSnapshot record(std::uint32_t id, std::vector<std::string> state, std::string reason = "None",
                   std::optional<int> offset = std::nullopt) {
  JobSnapshot j;
  j.job_id = id;
  j.sluid = "s" + std::to_string(id);
  if (offset) {
    j.het_job_id = id - static_cast<std::uint32_t>(*offset);
    j.het_job_offset = offset;
  }
  j.state = SlurmState::from_list(state);
  j.state_reason = std::move(reason);
  return j;
}

TEST(SlurmVerdictTest, APlainJobMovesFromPendingToRunningToSucceeded) {
  EXPECT_EQ(judge({record(7, {"PENDING"}, "Resources")}, {}, std::nullopt, false).state, AttemptState::pending);
  EXPECT_EQ(judge({record(7, {"RUNNING"})}, {}, std::nullopt, false).state, AttemptState::running);
  const Verdict done = judge({record(7, {"COMPLETED"})}, {}, std::nullopt, true);
  EXPECT_EQ(done.state, AttemptState::succeeded);
  EXPECT_FALSE(done.holds_resources);
  EXPECT_TRUE(done.retry_because.empty());
}

TEST(SlurmVerdictTest, AnEndWhileCompletingStillHoldsResources) {
  const Verdict v = judge({record(7, {"COMPLETED", "COMPLETING"})}, {}, std::nullopt, true);
  EXPECT_EQ(v.state, AttemptState::succeeded);
  EXPECT_TRUE(v.holds_resources);
  EXPECT_EQ(v.slurm_state, "COMPLETED+COMPLETING");
}

TEST(SlurmVerdictTest, OneFailedComponentFailsTheJobWithItsReason) {
  JobSnapshot bad = record(11, {"FAILED"}, "NonZeroExitCode", 1);
  bad.exit_code = 3;
  const Verdict v = judge({record(10, {"CANCELLED"}, "None", 0), bad}, {}, std::nullopt, true);
  EXPECT_EQ(v.state, AttemptState::failed);
  EXPECT_EQ(v.reason, "NonZeroExitCode");
  EXPECT_EQ(v.exit_code, 3);
  EXPECT_NE(v.outcome.find("component 1"), std::string::npos) << v.outcome;
  EXPECT_EQ(v.slurm_state, "0:CANCELLED 1:FAILED");
  EXPECT_TRUE(v.retry_because.empty()) << "the program's own exit is never retried";
}

TEST(SlurmVerdictTest, OneRunningComponentKeepsTheJobRunning) {
  EXPECT_EQ(
      judge({record(10, {"COMPLETED"}, "None", 0), record(11, {"RUNNING"}, "None", 1)}, {}, std::nullopt, true).state,
      AttemptState::running);
}

TEST(SlurmVerdictTest, OnlyFailuresThatAreNotTheProgramsOwnAreRetried) {
  for (const char* state : {"NODE_FAIL", "BOOT_FAIL", "PREEMPTED"}) {
    const Verdict v = judge({record(7, {state})}, {}, std::nullopt, true);
    EXPECT_EQ(v.state, AttemptState::failed) << state;
    EXPECT_FALSE(v.retry_because.empty()) << state;
  }
  for (const char* state : {"TIMEOUT", "OUT_OF_MEMORY", "DEADLINE", "FAILED"}) {
    const Verdict v = judge({record(7, {state})}, {}, std::nullopt, true);
    EXPECT_EQ(v.state, AttemptState::failed) << state;
    EXPECT_TRUE(v.retry_because.empty()) << state;
  }
  EXPECT_FALSE(judge({record(7, {"FAILED", "LAUNCH_FAILED"})}, {}, std::nullopt, true).retry_because.empty());
  EXPECT_EQ(judge({record(7, {"CANCELLED"})}, {}, std::nullopt, true).state, AttemptState::cancelled);
}

TEST(SlurmVerdictTest, TheClustersFailuresHaveTheirOwnPhaseAndDecideAHetJob) {
  for (auto [state, phase] : {std::pair{"PREEMPTED", "preemption"}, std::pair{"NODE_FAIL", "node_failure"},
                              std::pair{"BOOT_FAIL", "boot_failure"}}) {
    const Verdict v = judge({record(7, {state}, "NodeDown")}, {}, ExitEvidence{143, "program"}, true);
    EXPECT_EQ(v.infra_failure, phase) << state;
    EXPECT_EQ(v.failure_phase, phase) << state << ": exit.json's program phase is what the cluster's end did";
    EXPECT_NE(v.outcome.find("not the program's failure"), std::string::npos) << v.outcome;
  }
  for (const char* state : {"FAILED", "TIMEOUT", "OUT_OF_MEMORY", "CANCELLED"}) {
    EXPECT_TRUE(judge({record(7, {state})}, {}, std::nullopt, true).infra_failure.empty()) << state;
  }
  // Component 0 failed because component 1's node failed: the node failure decides.
  const Verdict het = judge({record(20, {"FAILED"}, "NonZeroExitCode", 0), record(21, {"NODE_FAIL"}, "NodeDown", 1)},
                            {}, std::nullopt, true);
  EXPECT_EQ(het.infra_failure, "node_failure");
  EXPECT_NE(het.outcome.find("component 1"), std::string::npos) << het.outcome;
}

TEST(SlurmVerdictTest, ExitJsonSaysWhichPhaseFailed) {
  const Verdict container = judge({record(7, {"FAILED"}, "NonZeroExitCode")}, {}, ExitEvidence{81, "container"}, true);
  EXPECT_EQ(container.failure_phase, "container");
  EXPECT_FALSE(container.retry_because.empty()) << "a container that did not start is not the program's failure";
  const Verdict verify = judge({record(7, {"FAILED"}, "NonZeroExitCode")}, {}, ExitEvidence{80, "verify"}, true);
  EXPECT_EQ(verify.failure_phase, "verify");
  EXPECT_TRUE(verify.retry_because.empty()) << "a failed image check is never retried";
}

// A failure is retried as a container that did not start only when exit.json says so. Without
// one (the script could not write it, or wrote something the reader refuses) or without a phase,
// the failure is final: the program may have run.
TEST(SlurmVerdictTest, OnlyAnExitJsonThatSaysContainerRetriesAFailure) {
  const JobSnapshot failed = record(7, {"FAILED"}, "NonZeroExitCode");
  const auto container = parse_exit_evidence(
      R"({"exit_status": 125, "failed_phase": "container", "program_started": {"component-0": 0, "component-1": 0}})");
  ASSERT_TRUE(container);
  EXPECT_FALSE(judge({failed}, {}, container, true).retry_because.empty());
  EXPECT_FALSE(judge_exit(*container).retry_because.empty()) << "the end known from exit.json alone (v0.0.38)";

  const auto program = parse_exit_evidence(
      R"({"exit_status": 3, "failed_phase": "program", "program_started": {"component-0": 2, "component-1": null}})");
  ASSERT_TRUE(program);
  for (const std::optional<ExitEvidence>& exit :
       {program, std::optional<ExitEvidence>{}, parse_exit_evidence(R"({"exit_stat)"),
        parse_exit_evidence(R"({"exit_status": 3, "failed_phase": null})"),
        parse_exit_evidence(R"({"exit_status": 3, "failed_phase": "Container"})")}) {
    const Verdict v = judge({failed}, {}, exit, true);
    EXPECT_EQ(v.state, AttemptState::failed);
    EXPECT_TRUE(v.retry_because.empty()) << v.failure_phase;
    EXPECT_NE(v.failure_phase, "container");
    if (exit) {
      EXPECT_TRUE(judge_exit(*exit).retry_because.empty()) << exit->failed_phase;
    }
  }
  EXPECT_EQ(judge_exit(ExitEvidence{3, ""}).failure_phase, "program") << "no phase is the program's";
}

TEST(SlurmVerdictTest, RequeuesAndNewSluidsAreAnomalies) {
  JobSnapshot requeued = record(7, {"PENDING"}, "BeginTime");
  requeued.restart_count = 1;
  EXPECT_FALSE(judge({requeued}, {}, std::nullopt, true).anomaly.empty());
  EXPECT_FALSE(judge({record(7, {"PENDING", "REQUEUED"})}, {}, std::nullopt, false).anomaly.empty());
  journal::JournaledComponent before;
  before.job_id = 7;
  before.sluid = "sOLD";
  EXPECT_NE(judge({record(7, {"RUNNING"})}, {before}, std::nullopt, true).anomaly.find("SLUID"), std::string::npos);
  EXPECT_FALSE(judge({record(7, {"PENDING"})}, {}, std::nullopt, true).anomaly.empty())
      << "back to pending after running";
  EXPECT_TRUE(judge({record(7, {"RUNNING"})}, {}, std::nullopt, true).anomaly.empty());
}

TEST(SlurmVerdictTest, AV0038FlagHidesTheEndUntilExitJsonOrTheNextPoll) {
  JobSnapshot completing = record(7, {});
  completing.state = SlurmState::from_v0038("COMPLETING");
  const Verdict hidden = judge({completing}, {}, std::nullopt, true);
  EXPECT_FALSE(hidden.known);
  EXPECT_EQ(hidden.state, AttemptState::running) << "not final until the base state is known";
  EXPECT_TRUE(hidden.holds_resources);
  const Verdict from_exit = judge({completing}, {}, ExitEvidence{0, ""}, true);
  EXPECT_EQ(from_exit.state, AttemptState::succeeded);
  EXPECT_TRUE(from_exit.holds_resources);
  EXPECT_EQ(judge({completing}, {}, ExitEvidence{3, "program"}, true).state, AttemptState::failed);
}

TEST(SlurmVerdictTest, ExitEvidenceIsReadStrictly) {
  auto ok = parse_exit_evidence(R"({"exit_status": 3, "failed_phase": "program"})");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->exit_status, 3);
  EXPECT_EQ(ok->failed_phase, "program");
  auto none = parse_exit_evidence(R"({"exit_status": 0, "failed_phase": null})");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->failed_phase.empty());
  EXPECT_FALSE(parse_exit_evidence("{\"exit_status\": 300}"));
  EXPECT_FALSE(parse_exit_evidence("{\"exit_status\": \"0\"}"));
  EXPECT_FALSE(parse_exit_evidence("{\"exit_stat"));
  EXPECT_EQ(judge_exit(*ok).state, AttemptState::failed);
  EXPECT_EQ(judge_exit(*none).state, AttemptState::succeeded);
}

}  // namespace
}  // namespace tpslurm::reconcile
