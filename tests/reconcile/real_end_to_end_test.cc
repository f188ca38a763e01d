// From `submit` to a closed cleanup on the real Slurm 22.05 (real_end_to_end_test.h): a
// CPU-only job, a two-pool heterogeneous job, a failing job (also one that empties its scratch/
// or truncates its stderr first: still its own failure), a container that cannot start
// (retried), a cancel with grace of a running
// job, a retry after a node failure, a daemon SIGKILLed while jobs run that converges
// without a second submit after its restart, and a job waiting for a GPU that says why and
// when it is expected to start; `logs` shows each component's output.
#include "real_end_to_end_test.h"

#include <signal.h>

#include <boost/json.hpp>
#include <thread>

#include "journal/components.h"
#include "support/eventually.h"

namespace tpslurm::reconcile::testing {
namespace {

using model::AttemptState;
using model::JobPhase;

const std::string kOnEmu = R"([
    {"name": "main", "gpu_series": "local-b", "nodes": 1, "gpus_per_node": 1, "cpus": 1, "memory_gb": 1}])";

bool has(const std::vector<std::string>& kinds, const std::string& kind) {
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

TEST_F(EndToEndTest, ACpuOnlyJobRunsToAClosedCleanupAndItsLogsShowItsOutput) {
  submit("cpu", R"(["/bin/sh", "-c", "echo hello-from-the-cpu-job"])");
  start_serve();
  ASSERT_TRUE(closed_in("cpu", JobPhase::succeeded)) << "phase " << model::to_string(job("cpu").phase);
  const auto a = attempts("cpu").back();
  EXPECT_EQ(a.state, AttemptState::succeeded);
  EXPECT_EQ(a.exit_code, 0);
  EXPECT_NE(a.logs_sha256.find("exit.json"), std::string::npos) << a.logs_sha256;
  const auto logs = cli({"logs", "cpu"});
  EXPECT_EQ(logs.exit_code, 0) << logs.err;
  EXPECT_NE(logs.out.find("hello-from-the-cpu-job"), std::string::npos) << logs.out;
  const auto status = cli({"status", "cpu"});
  EXPECT_NE(status.out.find("resources held: no"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("attempt 1 used: no usage: accounting is off"), std::string::npos)
      << "this cluster keeps no accounting: " << status.out;
  EXPECT_EQ(slurm_jobs_named("cpu", 1), 1);
}

TEST_F(EndToEndTest, ATwoPoolHeterogeneousJobRunsOnBothNodes) {
  expect_two_pool_hetjob_on_both_nodes(R"(["/bin/sh", "-c", "echo hello-from-$(hostname)-rank-$NODE_RANK"])",
                                       "hello-from-");
}

TEST_F(EndToEndTest, AFailingProgramFailsWithItsExitCodeAndIsNotRetried) {
  submit("fails", R"(["/bin/sh", "-c", "echo about-to-fail >&2; exit 3"])", {}, 3);
  start_serve();
  ASSERT_TRUE(closed_in("fails", JobPhase::failed)) << "phase " << model::to_string(job("fails").phase);
  const auto list = attempts("fails");
  ASSERT_EQ(list.size(), 1u) << "the program's own failure is never retried";
  EXPECT_EQ(list[0].state, AttemptState::failed);
  EXPECT_EQ(list[0].exit_code, 3);
  EXPECT_EQ(list[0].failure_phase, "program");
  const auto logs = cli({"logs", "fails", "--stderr"});
  EXPECT_NE(logs.out.find("about-to-fail"), std::string::npos) << logs.out;
}

// The program owns its scratch/ (TMPDIR): emptying it says nothing about whether it started.
TEST_F(EndToEndTest, AProgramThatEmptiesItsScratchAndFailsIsNotRetried) {
  submit("wipes", R"(["/bin/sh", "-c", "rm -rf \"$TMPDIR\"/* \"$TMPDIR\"/.[!.]*; echo wiped >&2; exit 3"])", {}, 3);
  start_serve();
  ASSERT_TRUE(closed_in("wipes", JobPhase::failed)) << "phase " << model::to_string(job("wipes").phase);
  const auto list = attempts("wipes");
  ASSERT_EQ(list.size(), 1u) << "a program that started is never retried as a container that did not";
  EXPECT_EQ(list[0].exit_code, 3);
  EXPECT_EQ(list[0].failure_phase, "program");
  const auto logs = cli({"logs", "wipes", "--stderr"});
  EXPECT_NE(logs.out.find("tuneplane: task 0 starts the program"), std::string::npos) << logs.out;
  EXPECT_NE(logs.out.find("wiped"), std::string::npos) << logs.out;
}

// Its stderr reaches srun on the batch host as it is written: truncating it there takes nothing back.
TEST_F(EndToEndTest, AProgramThatTruncatesItsStderrAndFailsIsNotRetried) {
  submit("truncates", R"(["/bin/sh", "-c", "echo before-truncating >&2; : > /proc/self/fd/2; exit 3"])", {}, 3);
  start_serve();
  ASSERT_TRUE(closed_in("truncates", JobPhase::failed)) << "phase " << model::to_string(job("truncates").phase);
  const auto list = attempts("truncates");
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].failure_phase, "program");
  const auto logs = cli({"logs", "truncates", "--stderr"});
  EXPECT_NE(logs.out.find("before-truncating"), std::string::npos) << logs.out;
}

// The runtime fails before the wrapper runs (here: no such working directory in the image): no
// task said the program starts, so the attempt is the container's and is retried.
TEST_F(EndToEndTest, AContainerThatCannotStartIsRetried) {
  submit("nostart", R"(["/bin/sh", "-c", "echo never-runs"])", {}, 2, "/no/such/directory");
  start_serve();
  ASSERT_TRUE(closed_in("nostart", JobPhase::failed)) << "phase " << model::to_string(job("nostart").phase);
  const auto list = attempts("nostart");
  ASSERT_EQ(list.size(), 2u) << "retried up to spec.retry.max_attempts";
  for (const auto& a : list) {
    EXPECT_EQ(a.failure_phase, "container") << a.number;
    EXPECT_EQ(a.state, AttemptState::failed) << a.number;
  }
  const auto logs = cli({"logs", "nostart", "--stderr"});
  EXPECT_EQ(logs.out.find("starts the program"), std::string::npos) << logs.out;
}

TEST_F(EndToEndTest, ACancelWithGraceSignalsTheRunningJobThenKillsIt) {
  submit("grace",
         R"(["/bin/sh", "-c", "trap 'echo got-usr1' USR1; echo ready; for i in $(seq 600); do sleep 0.2; done"])");
  start_serve();
  ASSERT_TRUE(eventually("grace", [](const auto&, const auto& a) { return a.state == AttemptState::running; }));
  // Slurm says running once the batch script runs; the program's trap is there only once it
  // has said so (a signal before it would end any program, under any runtime).
  ASSERT_TRUE(tpslurm::testing::eventually(
      [&] {
        return cli({"logs", "grace"}).out.find("ready") != std::string::npos;
      },
      std::chrono::seconds(60)))
      << cli({"logs", "grace"}).out;
  const auto cancelled = cli({"cancel", "grace", "--grace", "3", "--reason", "end-to-end"});
  ASSERT_EQ(cancelled.exit_code, 0) << cancelled.err;
  ASSERT_TRUE(closed_in("grace", JobPhase::cancelled)) << "phase " << model::to_string(job("grace").phase);
  const auto kinds = event_kinds("grace");
  EXPECT_TRUE(has(kinds, "checkpoint_signal"));
  const auto logs = cli({"logs", "grace"});
  EXPECT_NE(logs.out.find("got-usr1"), std::string::npos) << "the program saw SIGUSR1 before the kill: " << logs.out;
}

TEST_F(EndToEndTest, ANodeFailureIsRetriedOnANewAttemptThatCostsNoneOfTheJobsAttempts) {
  m_extra_env["TUNEPLANE_INFRA_RETRY_BACKOFF"] = "2s";
  submit("node", R"(["/bin/sh", "-c", "sleep 120"])", kOnEmu);  // max_attempts 1: no retry of its own
  start_serve();
  ASSERT_TRUE(eventually("node", [](const auto&, const auto& a) { return a.state == AttemptState::running; }));
  const auto down = slurm_control({"update", "nodename=vm-emu", "state=down", "reason=end-to-end node failure"});
  ASSERT_EQ(down.exit_code, 0) << down.err;
  const bool retried = eventually("node", [](const auto&, const auto& a) { return a.number == 2; });
  // ReturnToService=2 may have brought the node back already; then resume is refused.
  (void)slurm_control({"update", "nodename=vm-emu", "state=resume"});
  bool back = false;
  for (int i = 0; i < 40 && !back; ++i) {
    back = slurm_control({"show", "node", "vm-emu"}).out.find("State=DOWN") == std::string::npos;
    if (!back) std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  ASSERT_TRUE(back) << "node vm-emu did not come back";
  ASSERT_TRUE(retried);
  const auto list = attempts("node");
  EXPECT_EQ(list[0].state, AttemptState::failed);
  EXPECT_EQ(list[0].cleanup, model::CleanupStep::closed) << "the retry waits for the cleanup";
  EXPECT_NE(list[0].slurm_state.find("NODE_FAIL"), std::string::npos) << list[0].slurm_state;
  EXPECT_EQ(list[0].failure_phase, "node_failure");
  EXPECT_EQ(job("node").max_attempts, 2) << "the retry is granted, not taken from the request's one attempt";
  const auto audit = cli({"audit", "node", "--json"});
  EXPECT_NE(audit.out.find("the cluster's failure: retry 1 of 5"), std::string::npos) << audit.out;
  const auto status = cli({"status", "node"});
  EXPECT_NE(status.out.find("the cluster ended 1 attempt"), std::string::npos) << status.out;
  ASSERT_TRUE(eventually("node", [](const auto&, const auto& a) { return a.number == 2 && a.slurm_job_id; }));
  EXPECT_NE(attempts("node").back().slurm_job_id, list[0].slurm_job_id);
  ASSERT_EQ(cli({"cancel", "node"}).exit_code, 0);
  EXPECT_TRUE(closed_in("node", JobPhase::cancelled));
}

TEST_F(EndToEndTest, ADaemonKilledWhileJobsRunConvergesWithoutASecondSubmit) {
  submit("k1", R"(["/bin/sh", "-c", "sleep 4; echo k1-done"])");
  submit("k2", R"(["/bin/sh", "-c", "sleep 4; echo k2-done"])");
  start_serve();
  for (const char* id : {"k1", "k2"}) {
    ASSERT_TRUE(eventually(id, [](const auto&, const auto& a) { return a.state == AttemptState::running; })) << id;
  }
  kill_serve();
  start_serve();
  for (const char* id : {"k1", "k2"}) {
    ASSERT_TRUE(closed_in(id, JobPhase::succeeded)) << id;
    EXPECT_EQ(attempts(id).size(), 1u) << id;
    EXPECT_EQ(slurm_jobs_named(id, 1), 1) << id << ": exactly one Slurm job";
  }
}

TEST_F(EndToEndTest, AJobWaitingForAGpuSaysWhyAndWhenSlurmExpectsItToStart) {
  submit("holder", R"(["/bin/sh", "-c", "sleep 240"])", kOnEmu);
  start_serve();
  ASSERT_TRUE(eventually("holder", [](const auto&, const auto& a) { return a.state == AttemptState::running; }));
  submit("waiter", R"(["/bin/sh", "-c", "echo waited"])", kOnEmu);
  // The only emu GPU is taken: Resources, and once the backfill scheduler (bf_interval=1) has
  // planned it, the end of the holder's time limit as its expected start.
  const bool planned = eventually(
      "waiter",
      [](const auto&, const auto& a) {
        const auto components = journal::parse_components(a.components);
        return a.state == AttemptState::pending && !components.empty() && components[0].reason == "Resources" &&
               journal::expected_start(components).has_value();
      },
      std::chrono::seconds(90));
  const auto json = cli({"status", "waiter", "--json"});
  const auto human = cli({"status", "waiter"});
  ASSERT_EQ(cli({"cancel", "waiter"}).exit_code, 0);
  ASSERT_EQ(cli({"cancel", "holder"}).exit_code, 0);
  ASSERT_TRUE(planned) << "components: " << attempts("waiter").back().components;
  EXPECT_NE(human.out.find("waiting in Slurm:"), std::string::npos) << human.out;
  EXPECT_NE(human.out.find("in use by other jobs"), std::string::npos) << human.out;
  EXPECT_NE(human.out.find("expected start: 20"), std::string::npos) << human.out;
  const auto view = boost::json::parse(json.out);
  const auto& pending = view.at("attempts").as_array().back().at("pending");
  ASSERT_TRUE(pending.is_object()) << json.out;
  EXPECT_TRUE(pending.at("expected_start").is_string()) << json.out;
  EXPECT_EQ(pending.at("components").as_array().at(0).at("reason"), "Resources");
  // The platform hears of the wait with its expected start: on the move into pending when Slurm
  // had planned the job by the daemon's first look, else as the change of its wait (attempt.pending).
  EXPECT_TRUE(an_event_detail_has("waiter", "expected_start")) << "the wait is an event";
  EXPECT_TRUE(closed_in("waiter", JobPhase::cancelled));
  EXPECT_TRUE(closed_in("holder", JobPhase::cancelled));
}

}  // namespace
}  // namespace tpslurm::reconcile::testing
