// A crash with several attempts in flight: the real daemon (`serve` on 4 pass threads) takes a
// sweep of jobs at once and dies at a crash point, reached by the first pass to get there while
// the others are anywhere between prepared and released; `serve --once` runs twice after it.
// Every job then has exactly one attempt, and either exactly one Slurm job, released, or — an
// attempt whose submit may have happened when the daemon died — is blocked (submit_unknown)
// while Slurm holds no job by its name; the simulator received exactly one submit per Slurm job
// and no job twice: none lost, none duplicated.
#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <iostream>
#include <map>
#include <set>
#include <thread>

#include "base/crash_point.h"
#include "binary_fixture.h"
#include "support/background_process.h"

namespace tpslurm::reconcile::testing {
namespace {

using tpslurm::testing::BackgroundProcess;

constexpr int kJobs = 6;
constexpr int kPassThreads = 4;  // fewer than the jobs: some wait for a pass at the crash
constexpr std::chrono::seconds kUntilReleased{60};

class CrashSweepTest : public BinaryTest, public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override { start_sim("26.05.3"); }

  // The daemon, crashing at `point`; returns whether it crashed there. When the point is not
  // reached it is stopped (SIGTERM) once every job is released, or after kUntilReleased.
  bool serve_until_crash(tpslurm::testing::EnvironmentMap env, const std::string& point) {
    env["TUNEPLANE_CRASH_AT"] = point;
    env["TUNEPLANE_PASS_THREADS"] = std::to_string(kPassThreads);
    std::string error;
    auto daemon = BackgroundProcess::start({TP_BINARY, "serve"}, env, m_dir.file("serve-" + point + ".log"), error);
    EXPECT_TRUE(daemon) << error;
    if (!daemon) return false;
    const auto deadline = std::chrono::steady_clock::now() + kUntilReleased;
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (::waitpid(daemon->pid(), &status, WNOHANG) == daemon->pid()) {
        return WIFEXITED(status) && WEXITSTATUS(status) == kCrashExitCode;
      }
      if (released(env) == kJobs) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    daemon->signal(SIGTERM);
    EXPECT_EQ(daemon->wait(), 0) << "serve, not crashed at " << point;
    return false;
  }

  // Jobs with exactly one attempt, released or not yet.
  static int attempts_released(const tpslurm::testing::EnvironmentMap& env, bool released) {
    auto reader = tpslurm::testing::open_read_only(journal_of(env));
    int count = 0;
    for (int i = 0; reader && i < kJobs; ++i) {
      auto attempts = reader->attempts(job_id(i));
      if (attempts.ok() && attempts->size() == 1 && attempts->front().released_at.empty() != released) ++count;
    }
    return count;
  }
  static int released(const tpslurm::testing::EnvironmentMap& env) { return attempts_released(env, true); }
  static int in_flight(const tpslurm::testing::EnvironmentMap& env) { return attempts_released(env, false); }

  static std::string job_id(int i) { return "sweep-" + std::to_string(i); }

  // How many jobs the simulator holds under each name (ids are handed out in order, so the first
  // unknown id ends the scan).
  std::map<std::string, int> jobs_by_name() {
    std::map<std::string, int> named;
    for (std::uint32_t id = 1; id < 100000; ++id) {
      auto view = m_sim->control(slurm::HttpMethod::get, "/sim/jobs/" + std::to_string(id));
      if (!view.ok()) break;
      ++named[std::string(view->as_object().at("name").as_string())];
    }
    return named;
  }
};

TEST_P(CrashSweepTest, ACrashWithSeveralAttemptsInFlightLosesNoneAndDuplicatesNone) {
  const std::string point = GetParam();
  const std::string root = m_dir.file("sweep");
  const auto env = environment(root);
  for (int i = 0; i < kJobs; ++i) {
    const auto submitted = cli(env, {"submit", request_file(root, job_id(i))});
    ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  }
  EXPECT_TRUE(serve_until_crash(env, point)) << point << " was not reached with " << kJobs << " jobs in flight";
  std::cout << point << ": at the crash " << in_flight(env) << " of " << kJobs
            << " attempts were between preparing and released\n";
  for (int run = 0; run < 2; ++run) {
    const auto once = cli(env, {"serve", "--once"});
    ASSERT_EQ(once.exit_code, 0) << once.err;
  }
  EXPECT_EQ(cli(env, {"journal", "check"}).exit_code, 0);
  auto reader = tpslurm::testing::open_read_only(journal_of(env));
  ASSERT_TRUE(reader);
  const std::map<std::string, int> named = jobs_by_name();
  std::set<std::uint32_t> slurm_jobs;
  for (int i = 0; i < kJobs; ++i) {
    auto attempts = reader->attempts(job_id(i));
    ASSERT_TRUE(attempts.ok());
    ASSERT_EQ(attempts->size(), 1u) << job_id(i);
    const journal::AttemptRecord& a = attempts->front();
    const auto in_slurm = named.find("tp-cm-" + job_id(i) + "-1");
    const int copies = in_slurm == named.end() ? 0 : in_slurm->second;
    if (a.state == model::AttemptState::submit_unknown) {
      EXPECT_EQ(copies, 0) << job_id(i) << " is blocked although Slurm holds it";
      continue;
    }
    EXPECT_EQ(a.state, model::AttemptState::pending) << job_id(i) << " ended " << model::to_string(a.state);
    EXPECT_FALSE(a.released_at.empty()) << job_id(i) << " was not released";
    EXPECT_EQ(copies, 1) << job_id(i) << ": Slurm jobs with its name";
    ASSERT_TRUE(a.slurm_job_id.has_value()) << job_id(i);
    EXPECT_TRUE(slurm_jobs.insert(*a.slurm_job_id).second) << job_id(i) << " shares a Slurm job";
  }
  EXPECT_GE(slurm_jobs.size(), static_cast<std::size_t>(kJobs - kPassThreads))
      << "at most the passes in flight blocked";
  EXPECT_EQ(m_sim->stat("submits_received"), static_cast<std::int64_t>(slurm_jobs.size()))
      << "one submit per Slurm job reached Slurm";
  EXPECT_EQ(m_sim->stat("jobs_created"), static_cast<std::int64_t>(slurm_jobs.size()));
}

// The points a sweep passes while several of its attempts are in flight.
INSTANTIATE_TEST_SUITE_P(Points, CrashSweepTest,
                         ::testing::Values("prepare.after_manifest", "submit.after_intent", "submit.sent",
                                           "submit.after_answer", "identify.after", "release.after_send",
                                           "release.after_commit"),
                         [](const auto& point) {
                           std::string name = point.param;
                           for (char& c : name) c = c == '.' ? '_' : c;
                           return name;
                         });

}  // namespace
}  // namespace tpslurm::reconcile::testing
