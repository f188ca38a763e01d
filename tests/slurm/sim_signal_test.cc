// cancel() with a signal end to end against a slurmrestd-sim process, for every dialect the
// simulator implements: SIGUSR1 reaches a running job and leaves it running; a pending job is
// not signalled and the answer says so (not_running, error 2020); a name not on the sendable
// list is refused before anything is sent; the default kill cancels; an ended job is
// already_done where the dialect can tell.
#include <gtest/gtest.h>

#include "sim_client_support.h"
#include "slurm/signal_names.h"

namespace tpslurm::slurm {
namespace {

using testing::sim_description;

// Requests the Slurm API (not the control API) received, from GET /sim/stats.
std::int64_t slurm_requests(testing::SimProcess& sim) {
  auto stats = sim.control(HttpMethod::get, "/sim/stats");
  EXPECT_TRUE(stats.ok()) << stats.error().message();
  if (!stats.ok()) return -1;
  std::int64_t total = 0;
  for (const auto& [route, count] : stats->at("requests_by_route").as_object()) {
    if (route.find(" /sim") == boost::json::string_view::npos) total += count.to_number<std::int64_t>();
  }
  return total;
}

struct Case {
  std::vector<std::string> args;
  std::string dialect;
};

void PrintTo(const Case& c, std::ostream* out) { *out << c.dialect; }

std::string case_name(const ::testing::TestParamInfo<Case>& param) {
  std::string name = param.param.dialect;
  for (char& c : name) {
    if (c == '.') c = '_';
  }
  return name;
}

class SimSignalTest : public testing::SimClientTest, public ::testing::WithParamInterface<Case> {
 protected:
  void SetUp() override { start(GetParam().args, GetParam().dialect); }

  std::uint32_t submit(bool running) {
    const SubmitResult made = m_client->submit(sim_description("tp-sim-signal"));
    EXPECT_EQ(made.outcome, Outcome::ok) << made.message;
    const std::uint32_t id = made.job_id.value_or(0);
    if (running) set_state(id, "RUNNING");
    return id;
  }
  void set_state(std::uint32_t id, const std::string& state) {
    control(HttpMethod::post, "/sim/jobs/" + std::to_string(id) + "/state", "{\"state\": \"" + state + "\"}");
  }
  boost::json::value view(std::uint32_t id) {
    auto answer = m_sim->control(HttpMethod::get, "/sim/jobs/" + std::to_string(id));
    EXPECT_TRUE(answer.ok()) << answer.error().message();
    return answer.ok() ? *answer : boost::json::value();
  }
  std::int64_t deletes() { return m_sim->route_count("DELETE /slurm/" + GetParam().dialect + "/job/{job_id}"); }
  bool v38() const { return GetParam().dialect == "v0.0.38"; }
};

TEST_P(SimSignalTest, TheCheckpointSignalReachesARunningJobAndLeavesItRunning) {
  const std::uint32_t id = submit(true);
  const CancelResult result = m_client->cancel({id, ""}, "SIGUSR1");
  EXPECT_EQ(result.outcome, Outcome::ok) << result.message;
  EXPECT_FALSE(result.not_running);
  EXPECT_FALSE(result.already_done);
  EXPECT_EQ(view(id).at("state"), "RUNNING");
  EXPECT_EQ(view(id).at("last_signal").to_number<int>(), 10);
}

TEST_P(SimSignalTest, APendingJobIsNotSignalledAndTheAnswerSaysSo) {
  const std::uint32_t id = submit(false);
  const CancelResult result = m_client->cancel({id, ""}, "SIGUSR1");
  EXPECT_EQ(result.outcome, Outcome::rejected_transient);
  EXPECT_TRUE(result.not_running);
  EXPECT_FALSE(result.already_done);
  // v0.0.38's error also carries its handler's description.
  const std::string detail = v38() ? " (unable to kill JobId=" + std::to_string(id) +
                                         " with signal 10: Job can not be altered now, try again later)"
                                   : "";
  EXPECT_EQ(result.message, "DELETE /slurm/" + GetParam().dialect + "/job/" + std::to_string(id) +
                                "?signal=SIGUSR1: not signalled: Slurm signals only running jobs, and this one is "
                                "pending (or suspended): Job can not be altered now, try again later" +
                                detail + " (error 2020)");
  EXPECT_EQ(view(id).at("state"), "PENDING");
  EXPECT_EQ(view(id).at("last_signal").to_number<int>(), 0);
}

TEST_P(SimSignalTest, ANameNotOnTheListIsRefusedAndNothingIsSent) {
  const std::uint32_t id = submit(true);
  const std::int64_t requests = slurm_requests(*m_sim);
  for (const std::string name : {"SIGFOO", "USR1", "sigusr1", "10", "SIGSTOP", " SIGUSR1"}) {
    const CancelResult result = m_client->cancel({id, ""}, name);
    EXPECT_EQ(result.outcome, Outcome::rejected) << name;
    EXPECT_FALSE(result.not_running) << name;
    EXPECT_EQ(result.message, "cancel job " + std::to_string(id) + ": not sent: signal \"" + name +
                                  "\" is not one this client sends (slurmrestd 25.05-26.05 kill the job on a name "
                                  "they cannot parse); use SIGHUP, SIGINT, SIGKILL, SIGTERM, SIGUSR1 or SIGUSR2, or "
                                  "no signal for Slurm's default kill");
  }
  EXPECT_EQ(slurm_requests(*m_sim), requests) << "no request reached the Slurm API";
  EXPECT_EQ(deletes(), 0);
  EXPECT_EQ(view(id).at("state"), "RUNNING");
  EXPECT_EQ(view(id).at("last_signal").to_number<int>(), 0);
}

TEST_P(SimSignalTest, TheDefaultKillCancelsARunningAndAPendingJob) {
  const std::uint32_t running = submit(true);
  const std::uint32_t pending = submit(false);
  for (std::uint32_t id : {running, pending}) {
    const CancelResult result = m_client->cancel({id, ""});
    EXPECT_EQ(result.outcome, Outcome::ok) << result.message;
    EXPECT_FALSE(result.not_running);
    EXPECT_EQ(view(id).at("state"), "CANCELLED") << id;
  }
}

// 22.05's v0.0.38 handler counts ESLURM_ALREADY_DONE a success: the answer is that of a
// delivered signal there.
TEST_P(SimSignalTest, ASignalToAnEndedJobIsAlreadyDoneWhereTheDialectCanTell) {
  const std::uint32_t id = submit(true);
  set_state(id, "COMPLETED");
  const CancelResult result = m_client->cancel({id, ""}, "SIGUSR1");
  EXPECT_EQ(result.outcome, Outcome::ok) << result.message;
  EXPECT_EQ(result.already_done, !v38());
  EXPECT_FALSE(result.not_running);
  EXPECT_EQ(view(id).at("last_signal").to_number<int>(), 0);
}

INSTANTIATE_TEST_SUITE_P(Dialects, SimSignalTest,
                         ::testing::Values(Case{{"--release", "22.05.8"}, "v0.0.38"}, Case{{}, "v0.0.43"},
                                           Case{{}, "v0.0.44"}, Case{{}, "v0.0.45"}),
                         case_name);

class SimSignalAutoTest : public testing::SimClientTest {};

// Before its first call a client with "auto" probes the server; a refused name does not.
TEST_F(SimSignalAutoTest, ARefusedNameSendsNotEvenTheDetection) {
  start({}, "auto");
  EXPECT_EQ(m_client->cancel({1, ""}, "KILL").outcome, Outcome::rejected);
  EXPECT_EQ(slurm_requests(*m_sim), 0);
}

}  // namespace
}  // namespace tpslurm::slurm
