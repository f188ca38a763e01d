// The submit protocol against the real Slurm 22.05 on loopback that tools/local-slurm starts
// (tools/test exports `tools/local-slurm env`), with the project's fault proxy
// (tools/fault-proxy) between the daemon and slurmrestd:
//   - the first submit's answer is lost after Slurm created the job: the daemon blocks, finds
//     and adopts it, and Slurm holds exactly one job with the tag;
//   - the daemon dies right after the send and right after the answer (before its commit):
//     restarted, Slurm holds exactly one job;
//   - a re-sent POST leaves a second held copy: it is found and cancelled, never run;
//   - in per-user mode, a lost answer is found and the job adopted and released as its user.
// Without the environment every test fails; it never skips.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "../slurm/fault_proxy_process.h"
#include "base/crash_point.h"
#include "base/digest.h"
#include "journal/journal.h"
#include "slurm/curl_transport.h"
#include "slurm/jwt_source.h"
#include "slurm/rest_client.h"
#include "support/journal_reader.h"
#include "support/local_slurm.h"
#include "support/run_process.h"
#include "support/temp_dir.h"

namespace tpslurm::reconcile::testing {
namespace {

using tpslurm::testing::ProcessResult;

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

class RealReconcileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"TUNEPLANE_SLURM_REST_URL", "TUNEPLANE_SLURM_REST_USER", "TUNEPLANE_SLURM_JWT_FILE",
                             "TUNEPLANE_SLURM_PARTITION"}) {
      ASSERT_FALSE(env(name).empty()) << "the local Slurm is not up: " << name
                                      << " is not set; run tools/local-slurm up and export tools/local-slurm env";
    }
    auto proxy = slurm::testing::FaultProxyProcess::start(env("TUNEPLANE_SLURM_REST_URL"));
    ASSERT_TRUE(proxy.ok()) << proxy.error().message();
    m_proxy = std::move(*proxy);
    const std::string image = "real reconcile image\n";
    tpslurm::testing::write_test_file(m_dir.file("storage/runtimes/test.sqsh"), image);
    tpslurm::testing::write_test_file(m_dir.file("registry.json"),
                                      R"({"runtimes": {"custom-test": {"framework": "custom", "launcher": "srun",
          "sqsh": {"path": "runtimes/test.sqsh", "sha256": ")" +
                                          sha256_hex(image) + R"("}}}})");
    tpslurm::testing::write_test_file(m_dir.file("gpu.json"), R"({"series": {}})");
    settings.rest_url = env("TUNEPLANE_SLURM_REST_URL");
    settings.rest_user = env("TUNEPLANE_SLURM_REST_USER");
    settings.jwt_file = env("TUNEPLANE_SLURM_JWT_FILE");
    auto transport = slurm::CurlTransport::create(slurm::transport_options(settings));
    ASSERT_TRUE(transport.ok());
    m_transport = std::move(*transport);
    m_tokens = std::make_unique<slurm::FileTokenSource>(settings.rest_user, settings.jwt_file, m_clock);
    auto client = slurm::RestClient::create(*m_transport, *m_tokens, tpslurm::testing::local_slurm_version());
    ASSERT_TRUE(client.ok());
    m_client = std::move(*client);
  }

  void TearDown() override {
    // Nothing of these tests stays queued on the shared cluster.
    for (std::uint32_t id : m_seen) (void)m_client->cancel(slurm::JobRef{id});
  }

  tpslurm::testing::EnvironmentMap daemon_env() {
    auto e = tpslurm::testing::minimal_environment();
    e["TUNEPLANE_STATE_DIR"] = m_dir.file("state");
    e["TUNEPLANE_STORAGE_ROOT"] = m_dir.file("storage");
    e["TUNEPLANE_GPU_SERIES_FILE"] = m_dir.file("gpu.json");
    e["TUNEPLANE_RUNTIME_REGISTRY_FILE"] = m_dir.file("registry.json");
    e["TUNEPLANE_INSTANCE"] = "real" + std::to_string(::getpid());
    e["TUNEPLANE_SLURM_PARTITION"] = env("TUNEPLANE_SLURM_PARTITION");
    e["TUNEPLANE_SLURM_REST_URL"] = m_proxy->url();
    e["TUNEPLANE_SLURM_REST_API_VERSION"] = "auto";
  // A release built from source (tools/slurm-release) is not under /usr: its srun comes first.
  if (const std::string prefix = env("TUNEPLANE_LOCAL_SLURM_PREFIX"); !prefix.empty()) {
    e["TUNEPLANE_SLURM_JOB_PATH"] = prefix + "/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  }
    e["TUNEPLANE_SLURM_REST_USER"] = settings.rest_user;
    e["TUNEPLANE_SLURM_JWT_FILE"] = settings.jwt_file;
    e["TUNEPLANE_LOG_LEVEL"] = "warn";
    if (!m_job_user.empty()) {
      e["TUNEPLANE_IDENTITY_MODE"] = "per-user";
      e["TUNEPLANE_USER_MAP_FILE"] = m_dir.file("users.json");
    }
    return e;
  }

  // Per-user mode from here on: requests name "alice", whom the map gives local-slurm's first
  // per-user test user.
  void per_user() {
    const std::string users = env("TUNEPLANE_LOCAL_SLURM_PER_USER_USERS");
    m_job_user = users.substr(0, users.find(','));
    ASSERT_FALSE(m_job_user.empty()) << "tools/local-slurm env names per-user mode's users";
    tpslurm::testing::write_test_file(m_dir.file("users.json"), R"({"users": {"alice": {"unix_user": ")" +
                                                                    m_job_user + R"(", "accounts": [")" +
                                                                    env("TUNEPLANE_LOCAL_SLURM_PER_USER_ACCOUNT") +
                                                                    R"("]}}})",
                                      std::filesystem::perms(0644));
    std::filesystem::permissions(m_dir.path(), std::filesystem::perms(0711));
  }

  ProcessResult cli(std::vector<std::string> args, tpslurm::testing::EnvironmentMap e) {
    args.insert(args.begin(), TP_BINARY);
    return tpslurm::testing::run_process(args, e);
  }

  void submit(const std::string& job_id) {
    const std::string path = m_dir.file(job_id + ".json");
    const std::string user = m_job_user.empty() ? "" : R"(, "user": "alice")";
    tpslurm::testing::write_test_file(path, R"({"job_id": ")" + job_id + "\"" + user + R"(, "type": "custom", "spec": {
        "framework": {"name": "custom", "runtime_id": "custom-test"}, "command": ["true"],
        "pools": [{"name": "main", "nodes": 1, "gpus_per_node": 0, "cpus": 1, "memory_gb": 1}],
        "time_limit_minutes": 5}, "credentials": {"ingest_token": "real-reconcile-token"}})");
    const ProcessResult added = cli({"submit", path}, daemon_env());
    ASSERT_EQ(added.exit_code, 0) << added.err;
  }

  void serve(const std::string& crash_at = {}) {
    auto e = daemon_env();
    if (!crash_at.empty()) e["TUNEPLANE_CRASH_AT"] = crash_at;
    const ProcessResult run = cli({"serve", "--once"}, e);
    ASSERT_EQ(run.exit_code, crash_at.empty() ? 0 : kCrashExitCode) << run.err;
  }

  // Slurm's records named like the job's first attempt, as slurmctld lists them.
  std::vector<model::JobSnapshot> slurm_jobs(const std::string& job_id) {
    const std::string name = model::job_name(daemon_env().at("TUNEPLANE_INSTANCE"), job_id, 1);
    slurm::JobsResult all = m_client->jobs_changed_since(std::nullopt);
    EXPECT_TRUE(all.ok()) << all.message;
    std::vector<model::JobSnapshot> out;
    for (const auto& record : all.jobs) {
      if (record.name == name) {
        out.push_back(record);
        m_seen.insert(record.job_id);
      }
    }
    return out;
  }

  journal::AttemptRecord attempt(const std::string& job_id) {
    auto attempts = tpslurm::testing::journaled_attempts(m_dir.file("state/journal.db"), job_id);
    EXPECT_EQ(attempts.size(), 1U) << "attempts of " << job_id;
    return attempts.empty() ? journal::AttemptRecord{} : attempts.front();
  }

  model::Settings settings;
  tpslurm::testing::TempDir m_dir;
  SystemClock m_clock;
  std::unique_ptr<slurm::testing::FaultProxyProcess> m_proxy;
  std::unique_ptr<slurm::CurlTransport> m_transport;
  std::unique_ptr<slurm::TokenSource> m_tokens;
  std::unique_ptr<slurm::RestClient> m_client;
  std::set<std::uint32_t> m_seen;
  std::string m_job_user;  // per-user mode: the Unix user "alice" runs as; empty: one-user mode
};

TEST_F(RealReconcileTest, ALostFirstAnswerBlocksThenTheJobIsFoundAndAdopted) {
  ASSERT_TRUE(m_proxy->add_fault(R"({"kind": "lose_answer", "method": "POST", "path_suffix": "/job/submit"})").ok());
  submit("lost");
  // The lost answer blocks the job; the searches of this run or of the next start find it.
  serve();
  serve();
  EXPECT_EQ(m_proxy->stat("answers_lost"), 1);
  EXPECT_EQ(m_proxy->route_count("POST /slurm/" + tpslurm::testing::local_slurm_version() + "/job/submit"), 1) << "nothing was sent again";
  const auto a = attempt("lost");
  EXPECT_TRUE(a.slurm_job_id && !a.released_at.empty()) << " released, now " << model::to_string(a.state);
  EXPECT_EQ(a.found_by, "search");
  EXPECT_FALSE(a.released_at.empty());
  const auto jobs = slurm_jobs("lost");
  ASSERT_EQ(jobs.size(), 1u) << "Slurm holds exactly one job with the tag";
  EXPECT_EQ(jobs[0].job_id, a.slurm_job_id.value_or(0));
}

// The search after the lost answer reads the job's user's own listings (root's token naming the
// user); the job found is then identified and released as its user, whose job it is in Slurm.
TEST_F(RealReconcileTest, InPerUserModeALostAnswerIsFoundAndTheJobReleasedAsItsUser) {
  per_user();
  ASSERT_TRUE(m_proxy->add_fault(R"({"kind": "lose_answer", "method": "POST", "path_suffix": "/job/submit"})").ok());
  submit("lost-pu");
  serve();
  serve();
  EXPECT_EQ(m_proxy->stat("answers_lost"), 1);
  EXPECT_EQ(m_proxy->route_count("POST /slurm/" + tpslurm::testing::local_slurm_version() + "/job/submit"), 1)
      << "nothing was sent again";
  const auto a = attempt("lost-pu");
  EXPECT_EQ(a.found_by, "search");
  EXPECT_FALSE(a.released_at.empty()) << "now " << model::to_string(a.state);
  EXPECT_EQ(a.unix_user, m_job_user);
  const auto jobs = slurm_jobs("lost-pu");
  ASSERT_EQ(jobs.size(), 1u) << "Slurm holds exactly one job with the tag";
  const std::string prefix = env("TUNEPLANE_LOCAL_SLURM_PREFIX");
  auto e = tpslurm::testing::minimal_environment();
  e["SLURM_CONF"] = env("TUNEPLANE_LOCAL_SLURM_CONF");
  const auto shown = tpslurm::testing::run_process(
      {prefix.empty() ? std::string("scontrol") : prefix + "/bin/scontrol", "show", "job",
       std::to_string(jobs[0].job_id)},
      e);
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("UserId=" + m_job_user + "("), std::string::npos) << shown.out;
}

TEST_F(RealReconcileTest, KilledRightAfterTheSendOneJobAfterTheRestart) {
  for (const std::string point : {"submit.sent", "submit.after_answer"}) {
    const std::string id = point == "submit.sent" ? "killed-sent" : "killed-answer";
    submit(id);
    serve(point);
    serve();
    const auto a = attempt(id);
    EXPECT_TRUE(a.slurm_job_id && !a.released_at.empty()) << point << " released, now " << model::to_string(a.state);
    EXPECT_EQ(slurm_jobs(id).size(), 1u) << point << ": exactly one job after the restart";
  }
  EXPECT_EQ(m_proxy->route_count("POST /slurm/" + tpslurm::testing::local_slurm_version() + "/job/submit"), 2) << "one submit per job, never again";
}

TEST_F(RealReconcileTest, KilledRightAfterTheIntentNothingIsSentAgain) {
  submit("killed-intent");
  serve("submit.after_intent");
  serve();
  const auto a = attempt("killed-intent");
  EXPECT_EQ(a.state, model::AttemptState::submit_unknown) << "the intent may have been sent: blocked";
  EXPECT_EQ(slurm_jobs("killed-intent").size(), 0u);
  EXPECT_EQ(m_proxy->route_count("POST /slurm/" + tpslurm::testing::local_slurm_version() + "/job/submit"), 0);
}

TEST_F(RealReconcileTest, AResentPostsCopyIsFoundAndCancelledWhileHeld) {
  ASSERT_TRUE(m_proxy->add_fault(R"({"kind": "resend", "method": "POST", "path_suffix": "/job/submit"})").ok());
  submit("resent");
  serve();
  serve();  // the next start sweeps for copies
  const auto a = attempt("resent");
  EXPECT_TRUE(a.slurm_job_id && !a.released_at.empty()) << " released, now " << model::to_string(a.state);
  const auto jobs = slurm_jobs("resent");
  ASSERT_EQ(jobs.size(), 2u) << "Slurm received the POST twice";
  for (const auto& job : jobs) {
    if (job.job_id == a.slurm_job_id.value_or(0)) {
      EXPECT_NE(job.state.base, model::SlurmBaseState::cancelled) << "the journaled job is never cancelled";
    } else {
      EXPECT_EQ(job.state.base, model::SlurmBaseState::cancelled) << "the copy is cancelled";
      EXPECT_TRUE(job.nodes.empty()) << "the held copy never ran (nodes " << job.nodes << ")";
    }
  }
}

}  // namespace
}  // namespace tpslurm::reconcile::testing
