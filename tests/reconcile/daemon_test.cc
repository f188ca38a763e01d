// `serve` as a daemon (the real binary): a job the CLI adds reaches Slurm well within one poll
// interval; SIGTERM lets the pass in flight finish and exits 0; a second `serve` is refused;
// a storage root that refuses writes stops preparing until it clears.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "binary_fixture.h"
#include "journal/journal.h"
#include "support/background_process.h"
#include "support/eventually.h"

namespace tpslurm::reconcile::testing {
namespace {

using tpslurm::testing::eventually;

class DaemonTest : public BinaryTest {
 protected:
  void SetUp() override {
    start_sim("26.05.3");
    m_env = environment(m_dir.file("deploy"));
    m_env["TUNEPLANE_POLL_INTERVAL"] = "60s";
    m_env["TUNEPLANE_LOG_LEVEL"] = "info";
  }
  // Starts `serve` in the background with stderr to a file.
  void start_serve() {
    std::string error;
    m_serve = tpslurm::testing::BackgroundProcess::start({TP_BINARY, "serve"}, m_env, m_dir.file("serve.log"), error);
    ASSERT_TRUE(m_serve) << error;
  }

  int stop_serve(int signals = 1) {
    for (int i = 0; i < signals; ++i) m_serve->signal(SIGTERM);
    return m_serve->wait();
  }

  std::optional<journal::AttemptRecord> attempt(const std::string& job_id) {
    return tpslurm::testing::first_attempt(journal_of(m_env), job_id);
  }

  tpslurm::testing::EnvironmentMap m_env;
  std::unique_ptr<tpslurm::testing::BackgroundProcess> m_serve;
};

TEST_F(DaemonTest, ANewJobReachesSlurmWellWithinOnePollIntervalAndSigtermExitsZero) {
  ASSERT_EQ(cli(m_env, {"migrate"}).exit_code, 0);
  start_serve();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the first cycle has run: nothing to do
  ASSERT_EQ(cli(m_env, {"submit", request_file(m_dir.path(), "d1")}).exit_code, 0);
  // Released within 20 s although the next cycle is 60 s away: the daemon noticed the new job.
  EXPECT_TRUE(eventually([&] {
    auto a = attempt("d1");
    return a && !a->released_at.empty();
  })) << tpslurm::testing::read_test_file(m_dir.file("serve.log"));
  EXPECT_EQ(m_sim->stat("submits_received"), 1);

  // A second daemon on the same journal is refused with the first one's pid.
  const auto second = cli(m_env, {"serve", "--once"});
  EXPECT_NE(second.exit_code, 0);
  EXPECT_NE(second.err.find("(pid " + std::to_string(m_serve->pid()) + ")"), std::string::npos) << second.err;

  // A cancel from the CLI is applied without waiting for the next cycle.
  ASSERT_EQ(cli(m_env, {"cancel", "d1"}).exit_code, 0);
  EXPECT_TRUE(eventually([&] {
    auto a = attempt("d1");
    return a && a->state == model::AttemptState::cancelled;
  }));
  EXPECT_EQ(stop_serve(), 0);
  const std::string log = tpslurm::testing::read_test_file(m_dir.file("serve.log"));
  EXPECT_NE(log.find("finishing the passes in flight"), std::string::npos) << log;
  EXPECT_NE(log.find("job=d1 attempt=1"), std::string::npos) << log;
}

// A SIGTERM that comes while serve is still starting (here: Slurm answers its first
// version probe two seconds late) waits until the daemon handles it, and then stops it cleanly:
// exit 0, not the 143 of a process killed by the signal. It is sent once the probe has reached
// the simulator: serve holds the signal from its first step, not from the process's exec.
TEST_F(DaemonTest, ASigtermDuringASlowStartStopsTheDaemonCleanly) {
  ASSERT_EQ(cli(m_env, {"migrate"}).exit_code, 0);
  fault(R"({"kind": "delay", "ms": 2000, "method": "GET", "path_prefix": "/slurm/", "count": 1})");
  start_serve();
  ASSERT_TRUE(eventually([&] {
    auto stats = m_sim->control(slurm::HttpMethod::get, "/sim/stats");
    if (!stats.ok() || !stats->is_object()) return false;
    const auto* faults = stats->as_object().if_contains("faults_injected");
    return faults != nullptr && faults->is_object() && faults->as_object().contains("delay");
  })) << "the probe never reached the simulator";
  EXPECT_EQ(stop_serve(), 0) << tpslurm::testing::read_test_file(m_dir.file("serve.log"));
  const std::string log = tpslurm::testing::read_test_file(m_dir.file("serve.log"));
  EXPECT_NE(log.find("finishing the passes in flight"), std::string::npos) << log;
}

TEST_F(DaemonTest, JsonLogsNameTheJobAndNeverTheToken) {
  m_env["TUNEPLANE_LOG_FORMAT"] = "json";
  ASSERT_EQ(cli(m_env, {"submit", request_file(m_dir.path(), "d2")}).exit_code, 0);
  const auto run = cli(m_env, {"serve", "--once"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find(R"("job":"d2","attempt":1)"), std::string::npos) << run.err;
  const std::string token = tpslurm::testing::read_test_file(m_dir.file("jwt"));
  EXPECT_EQ(run.err.find(token.substr(10, 40)), std::string::npos) << "the token is never logged";
  EXPECT_EQ(run.err.find("tpcanary-ingest-token"), std::string::npos) << "the ingest credential is never logged";
}

// An attempt directory that cannot be made, while the storage root takes writes, is that
// attempt's problem alone: it waits (said once), every other job goes on, and it goes on when
// its directory can be made. A root that refuses writes altogether stops every prepare
// (StorageFaultTest, on real tmpfs mounts).
TEST_F(DaemonTest, AnAttemptDirectoryThatCannotBeMadeHoldsBackOnlyItsAttempt) {
  const std::string slurm_tree = m_env.at("TUNEPLANE_STORAGE_ROOT") + "/slurm";
  ASSERT_EQ(cli(m_env, {"submit", request_file(m_dir.path(), "d3")}).exit_code, 0);
  ASSERT_EQ(cli(m_env, {"submit", request_file(m_dir.path(), "d4")}).exit_code, 0);
  // The job's tree exists now (its credential); its attempts directory cannot be made.
  tpslurm::testing::write_test_file(slurm_tree + "/jobs/d3/attempts", "not a directory");
  auto blocked = cli(m_env, {"serve", "--once"});
  ASSERT_EQ(blocked.exit_code, 0) << blocked.err;
  EXPECT_EQ(attempt("d3")->state, model::AttemptState::preparing);
  EXPECT_EQ(attempt("d4")->state, model::AttemptState::pending) << "another attempt's directory is not this one's";
  EXPECT_NE(blocked.err.find("only this attempt waits"), std::string::npos) << blocked.err;
  EXPECT_EQ(blocked.err.find("the storage root cannot be written"), std::string::npos) << blocked.err;
  std::filesystem::remove(slurm_tree + "/jobs/d3/attempts");
  const auto cleared = cli(m_env, {"serve", "--once"});
  ASSERT_EQ(cleared.exit_code, 0) << cleared.err;
  EXPECT_EQ(attempt("d3")->state, model::AttemptState::pending);
  EXPECT_EQ(m_sim->stat("submits_received"), 2);
}

// The journal records its deployment at the first start. A renamed instance (or a moved storage
// root) is refused with the fix; `journal move-deployment` moves it, and the job Slurm already
// holds is still followed under the tag it was given.
// serve learns the server's release and version at start, journals them for `status`, and
// stops at once, with one line, when the server does not offer the version it must speak.
TEST_F(DaemonTest, ServeJournalsTheVersionItChoseAndStopsWhenNoneFits) {
  ASSERT_EQ(cli(m_env, {"serve", "--once"}).exit_code, 0);
  const auto status = cli(m_env, {"status"});
  EXPECT_NE(status.out.find("slurm: release 26.05.3, REST v0.0.45 (setting auto;"), std::string::npos) << status.out;

  m_env["TUNEPLANE_SLURM_REST_API_VERSION"] = "v0.0.38";
  const auto refused = cli(m_env, {"serve", "--once"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("(release 26.05.3) offers v0.0.45, v0.0.44, v0.0.43, v0.0.42, not the configured "
                             "v0.0.38: set TUNEPLANE_SLURM_REST_API_VERSION to auto"),
            std::string::npos)
      << refused.err;
  EXPECT_EQ(m_sim->stat("submits_received"), 0);
}

TEST_F(DaemonTest, AnotherDeploymentIsRefusedUntilItIsMovedAndItsJobsKeepTheirTags) {
  ASSERT_EQ(cli(m_env, {"submit", request_file(m_dir.path(), "d5")}).exit_code, 0);
  ASSERT_EQ(cli(m_env, {"serve", "--once"}).exit_code, 0);
  ASSERT_EQ(attempt("d5")->state, model::AttemptState::pending);
  const std::string name = attempt("d5")->tag_name;
  EXPECT_NE(name.find(m_env.at("TUNEPLANE_INSTANCE")), std::string::npos) << name;

  m_env["TUNEPLANE_INSTANCE"] = "renamed";
  const auto refused = cli(m_env, {"serve", "--once"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("journal move-deployment --reason TEXT"), std::string::npos) << refused.err;
  const auto moved = cli(m_env, {"journal", "move-deployment", "--reason", "new name"});
  ASSERT_EQ(moved.exit_code, 0) << moved.err;
  EXPECT_NE(moved.out.find("is now instance renamed"), std::string::npos) << moved.out;

  m_env["TUNEPLANE_STORAGE_ROOT"] = m_dir.file("elsewhere");
  const auto root = cli(m_env, {"journal", "move-deployment", "--reason", "new disk"});
  EXPECT_NE(root.exit_code, 0);
  EXPECT_NE(root.err.find("the storage root cannot change while attempts are open (d5/1)"), std::string::npos)
      << root.err;
  m_env = environment(m_dir.file("deploy"));
  m_env["TUNEPLANE_INSTANCE"] = "renamed";

  ASSERT_TRUE(m_sim->control(slurm::HttpMethod::post, "/sim/jobs/" + std::to_string(*attempt("d5")->slurm_job_id) +
                                                          "/state",
                             R"({"state": "COMPLETED"})")
                  .ok());
  const auto followed = cli(m_env, {"serve", "--once"});
  ASSERT_EQ(followed.exit_code, 0) << followed.err;
  EXPECT_EQ(attempt("d5")->state, model::AttemptState::succeeded) << "followed by the tag it was given";
  EXPECT_EQ(attempt("d5")->tag_name, name);
}

// A renamed host, TUNEPLANE_INSTANCE unset: this host's name gives another instance than the
// journal recorded at its first start ("cm", set then), as after a rename. serve starts with the
// journal's and says so once; the job it follows, the job it submits and the sweep's orphans all
// go by it. Only a setting that names another instance is refused, with the fix.
TEST_F(DaemonTest, ARenamedHostKeepsTheJournalsInstanceAndOnlyAnotherSettingIsRefused) {
  auto fresh = environment(m_dir.file("fresh"));
  fresh.erase("TUNEPLANE_INSTANCE");
  const auto shown = cli(fresh, {"config", "--json"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  std::string host;
  const boost::json::value rows = boost::json::parse(shown.out);
  for (const auto& row : rows.as_array()) {
    if (row.at("key") == "TUNEPLANE_INSTANCE") host = std::string(row.at("value").as_string());
  }
  ASSERT_NE(host, "cm") << "this host's name must give another instance than the journal's";

  ASSERT_EQ(cli(m_env, {"submit", request_file(m_dir.path(), "d6")}).exit_code, 0);
  ASSERT_EQ(cli(m_env, {"serve", "--once"}).exit_code, 0);
  ASSERT_EQ(attempt("d6")->state, model::AttemptState::pending);
  const std::uint32_t d6 = *attempt("d6")->slurm_job_id;
  ASSERT_TRUE(
      m_sim->control(slurm::HttpMethod::post, "/sim/jobs/bulk", R"({"count": 1, "names": ["tp-cm-stray-1"]})").ok());
  ASSERT_TRUE(
      m_sim->control(slurm::HttpMethod::post, "/sim/jobs/" + std::to_string(d6) + "/state", R"({"state": "COMPLETED"})")
          .ok());

  m_env.erase("TUNEPLANE_INSTANCE");
  ASSERT_EQ(cli(m_env, {"submit", request_file(m_dir.path(), "d7")}).exit_code, 0);
  const auto renamed = cli(m_env, {"serve", "--once"});
  ASSERT_EQ(renamed.exit_code, 0) << renamed.err;
  EXPECT_NE(renamed.err.find("instance cm: the journal's (TUNEPLANE_INSTANCE is not set; this host's name gives " +
                             host + ")"),
            std::string::npos)
      << renamed.err;
  EXPECT_EQ(attempt("d6")->state, model::AttemptState::succeeded) << "followed under the tag it was given";
  EXPECT_EQ(attempt("d7")->tag_name, "tp-cm-d7-1");
  EXPECT_EQ(attempt("d7")->state, model::AttemptState::pending);
  const auto orphans = cli(m_env, {"audit", "--orphans"});
  EXPECT_NE(orphans.out.find("tp-cm-stray-1"), std::string::npos) << orphans.out;

  m_env["TUNEPLANE_INSTANCE"] = "elsewhere";
  const auto refused = cli(m_env, {"serve", "--once"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("Unset TUNEPLANE_INSTANCE (the journal's is then used), or move the deployment"),
            std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("journal move-deployment --reason TEXT"), std::string::npos) << refused.err;
}

}  // namespace
}  // namespace tpslurm::reconcile::testing
