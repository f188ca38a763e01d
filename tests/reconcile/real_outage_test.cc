// Slurm outages on the real Slurm 22.05 (real_end_to_end_test.h), with jobs in flight:
//   - slurmrestd stopped for 30 s while one job runs (and ends) and another is submitted;
//   - every answer black-holed (the fault proxy reads it and closes the connection), then every
//     answer slow, while a job runs and another is submitted;
//   - slurmctld killed (SIGKILL) and started again while a job runs, another submitted meanwhile.
//     slurmctld writes its state file a few seconds after a change: killed before that, it
//     forgets a job it had just started and hands its id to the next submit (seen here). The
//     test makes it save its state once the job runs and kills it only after that save, as a
//     site's job would be saved, and lets the job end only once slurmctld is back (an end
//     slurmctld heard but had not saved when it was killed is lost with it: it recovers the job
//     as running).
// Each time: no job becomes lost or failed for the outage alone, nothing is submitted twice and
// nothing blocks (a refused connection, or a slurmrestd whose slurmctld is gone, proves nothing
// was created: the pre-flight keeps the submit back; a black-holed submit may block, and is then
// found), every job closes after, and the daemon's
// calls to slurmrestd during the outage stay within what its back-off allows (its /metrics
// counts them; the figure is printed).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "../api/http_client.h"
#include "../slurm/fault_proxy_process.h"
#include "real_end_to_end_test.h"
#include "support/eventually.h"

namespace tpslurm::reconcile::testing {
namespace {

using model::AttemptState;
using model::JobPhase;

const std::string kApiToken = "outage-test-api-token";

class OutageTest : public EndToEndTest {
 protected:
  void SetUp() override {
    EndToEndTest::SetUp();
    ASSERT_FALSE(env_of("TUNEPLANE_LOCAL_SLURM_STATE_DIR").empty()) << "tools/local-slurm env is not exported";
    m_socket = m_dir.file("api.sock");
    tpslurm::testing::write_test_file(m_dir.file("api-tokens"), "platform " + kApiToken + " read,submit,operate\n",
                                      std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    m_extra_env["TUNEPLANE_API_LISTEN"] = "unix:" + m_socket;
    m_extra_env["TUNEPLANE_API_TOKENS_FILE"] = m_dir.file("api-tokens");
  }
  void TearDown() override {
    // Whatever a failed test left stopped comes back for the tests after it.
    for (const char* daemon : {"slurmctld", "slurmrestd"}) (void)local_slurm({"start", daemon});
    EndToEndTest::TearDown();
  }

  tpslurm::testing::ProcessResult local_slurm(const std::vector<std::string>& args) {
    std::vector<std::string> argv{std::string(TP_SOURCE_DIR) + "/tools/local-slurm"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--state-dir", env_of("TUNEPLANE_LOCAL_SLURM_STATE_DIR")});
    return tpslurm::testing::run_process(argv, tpslurm::testing::minimal_environment());
  }

  // The daemon's HTTP calls to slurmrestd so far (every endpoint), from its /metrics; -1 when
  // the API does not answer.
  double rest_calls() {
    const api::testing::HttpAnswer answer =
        api::testing::http({0, m_socket}, "GET", "/metrics", "", {"Authorization: Bearer " + kApiToken});
    if (answer.status != 200) return -1;
    std::istringstream lines(answer.body);
    double total = 0;
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("tuneplane_slurm_rest_calls_total{", 0) != 0) continue;
      total += std::stod(line.substr(line.rfind(' ') + 1));
    }
    return total;
  }

  // Holds `seconds` of an outage, checking every second that no job went wrong because of it.
  // `may_block`: the outage can lose a submit's answer after Slurm took it.
  void hold_outage(int seconds, const std::vector<std::string>& jobs, bool may_block = false) {
    for (int i = 0; i < seconds; ++i) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
      for (const auto& id : jobs) {
        const auto list = attempts(id);
        ASSERT_FALSE(list.empty()) << id;
        const AttemptState state = list.back().state;
        ASSERT_NE(state, AttemptState::lost) << id << " became lost during the outage";
        ASSERT_NE(state, AttemptState::failed) << id << " failed during the outage";
        if (!may_block) {
          ASSERT_NE(state, AttemptState::submit_unknown) << id << " was blocked by an outage that created nothing";
        }
        ASSERT_EQ(list.size(), 1u) << id << ": a new attempt during the outage";
      }
    }
  }

  // The calls made while the outage lasted: at most one probe per back-off step (1 s doubling)
  // plus the calls already under way when it began. Prints the figure.
  void expect_backed_off(const std::string& what, double before, double after, int seconds) {
    ASSERT_GE(before, 0) << "the API did not answer /metrics before the outage";
    ASSERT_GE(after, 0) << "the API did not answer /metrics during the outage";
    const double calls = after - before;
    std::cout << "[ figure ] " << what << ": " << calls << " calls to slurmrestd in " << seconds << " s ("
              << calls * 60 / seconds << " per minute)\n";
    EXPECT_LE(calls, 15) << "the daemon did not back off during the outage";
  }

  // Has slurmctld write its job state now, and waits (bounded) until the file is written. A
  // change to a job makes slurmctld save its jobs within seconds: the admin comment, which the
  // daemon never reads, is set on `slurm_job_id` (a save that came before this one may already
  // hold the job, but nothing would make a later one come by itself).
  bool state_saved(std::uint32_t slurm_job_id) {
    const auto since = std::filesystem::file_time_type::clock::now();
    const auto updated = slurm_control({"update", "JobId=" + std::to_string(slurm_job_id), "AdminComment=saved"});
    if (updated.exit_code != 0) {
      ADD_FAILURE() << "scontrol update: " << updated.err;
      return false;
    }
    std::ifstream conf(env_of("TUNEPLANE_LOCAL_SLURM_CONF"));
    std::string location;
    for (std::string line; std::getline(conf, line);) {
      if (line.rfind("StateSaveLocation=", 0) == 0) location = line.substr(line.find('=') + 1);
    }
    if (location.empty()) return false;
    return tpslurm::testing::eventually(
        [&] {
          std::error_code error;
          const auto written = std::filesystem::last_write_time(location + "/job_state", error);
          return !error && written > since;
        },
        std::chrono::seconds(60));
  }

  void expect_closed_once(const std::string& id) {
    ASSERT_TRUE(closed_in(id, JobPhase::succeeded))
        << id << ": phase " << model::to_string(job(id).phase) << ", " << model::to_string(attempts(id).back().state);
    const auto list = attempts(id);
    ASSERT_EQ(list.size(), 1u) << id;
    EXPECT_TRUE(list[0].slurm_job_id) << id;
    // Slurm forgets a job MinJobAge after its end: never two, and none it does not account for.
    EXPECT_LE(slurm_jobs_named(id, 1), 1) << id << ": at most one Slurm job";
  }

  std::string m_socket;
};

TEST_F(OutageTest, SlurmrestdStoppedWhileAJobRunsAndAnotherIsSubmittedConvergesAfter) {
  submit("running", R"(["/bin/sh", "-c", "sleep 12; echo ran-through-the-outage"])");
  start_serve();
  ASSERT_TRUE(eventually("running", [](const auto&, const auto& a) { return a.state == AttemptState::running; }));
  ASSERT_TRUE(tpslurm::testing::eventually([&] { return rest_calls() > 0; })) << "the API never answered /metrics";
  const auto stopped = local_slurm({"stop", "slurmrestd"});
  ASSERT_EQ(stopped.exit_code, 0) << stopped.err;
  const double before = rest_calls();
  submit("waiting", R"(["/bin/sh", "-c", "echo submitted-after-the-outage"])");
  hold_outage(30, {"running", "waiting"});
  const double after = rest_calls();
  EXPECT_NE(attempts("waiting").back().state, AttemptState::submitted) << "nothing can be submitted meanwhile";
  const auto started = local_slurm({"start", "slurmrestd"});
  ASSERT_EQ(started.exit_code, 0) << started.err;
  expect_backed_off("slurmrestd stopped", before, after, 30);
  expect_closed_once("running");
  expect_closed_once("waiting");
}

TEST_F(OutageTest, AnswersBlackHoledThenSlowWhileJobsRunConvergeAfter) {
  auto proxy = slurm::testing::FaultProxyProcess::start(env_of("TUNEPLANE_SLURM_REST_URL"));
  ASSERT_TRUE(proxy.ok()) << proxy.error().message();
  m_extra_env["TUNEPLANE_SLURM_REST_URL"] = (*proxy)->url();
  m_extra_env["TUNEPLANE_SLURM_REQUEST_TIMEOUT"] = "5s";
  submit("through", R"(["/bin/sh", "-c", "sleep 20; echo ran-through-the-faults"])");
  start_serve();
  ASSERT_TRUE(eventually("through", [](const auto&, const auto& a) { return a.state == AttemptState::running; }));
  ASSERT_TRUE(tpslurm::testing::eventually([&] { return rest_calls() > 0; })) << "the API never answered /metrics";
  ASSERT_TRUE((*proxy)->add_fault(R"({"kind": "lose_answer", "count": -1})").ok());
  const double before = rest_calls();
  submit("queued", R"(["/bin/sh", "-c", "echo submitted-after-the-faults"])");
  hold_outage(20, {"through", "queued"}, true);
  const double after = rest_calls();
  ASSERT_TRUE((*proxy)->control(slurm::HttpMethod::del, "/proxy/faults").ok());
  expect_backed_off("answers black-holed", before, after, 20);
  // Every answer 1.5 s late (the request timeout is 5 s): slow, never a failure.
  ASSERT_TRUE((*proxy)->add_fault(R"({"kind": "delay", "ms": 1500, "count": -1})").ok());
  hold_outage(10, {"through", "queued"}, true);
  expect_closed_once("through");
  expect_closed_once("queued");
  ASSERT_TRUE((*proxy)->control(slurm::HttpMethod::del, "/proxy/faults").ok());
}

TEST_F(OutageTest, SlurmctldKilledWhileAJobRunsKeepsItThroughItsStateSave) {
  // It runs until the test lets it end, after slurmctld is back: a job that ended before the
  // kill would leave its end unsaved, and slurmctld would recover it as still running.
  submit("survivor", R"(["/bin/sh", "-c",
      "while [ ! -e \"$TMPDIR/go\" ]; do sleep 1; done; echo survived-the-controller"])");
  start_serve();
  ASSERT_TRUE(eventually("survivor", [](const auto&, const auto& a) { return a.state == AttemptState::running; }));
  ASSERT_TRUE(state_saved(*attempts("survivor").back().slurm_job_id)) << "slurmctld never saved its state";
  ASSERT_TRUE(tpslurm::testing::eventually([&] { return rest_calls() > 0; })) << "the API never answered /metrics";
  const auto killed = local_slurm({"kill", "slurmctld"});
  ASSERT_EQ(killed.exit_code, 0) << killed.err;
  const double before = rest_calls();
  submit("meanwhile", R"(["/bin/sh", "-c", "echo submitted-after-the-controller-came-back"])");
  hold_outage(20, {"survivor", "meanwhile"});
  const double after = rest_calls();
  const auto started = local_slurm({"start", "slurmctld"});
  ASSERT_EQ(started.exit_code, 0) << started.err;
  expect_backed_off("slurmctld killed", before, after, 20);
  EXPECT_EQ(attempts("survivor").back().state, AttemptState::running) << "it ran through the outage";
  tpslurm::testing::write_test_file(attempts("survivor").back().attempt_dir + "/scratch/go", "");
  expect_closed_once("survivor");
  expect_closed_once("meanwhile");
  const auto logs = cli({"logs", "survivor"});
  EXPECT_NE(logs.out.find("survived-the-controller"), std::string::npos) << logs.out;
}

}  // namespace
}  // namespace tpslurm::reconcile::testing
