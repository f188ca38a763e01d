// The journal's I/O failing at every point of one job's life, in-process against the
// simulator: the fault VFS (support/fault_vfs.h) fails the n-th read, write, sync or truncate
// of the journal's files while a CPU job, once journaled (as `submit` leaves it), goes to a
// closed cleanup (prepared, submitted held, released, running, ended by the simulator,
// followed, cleaned up) -- once (an I/O error) and always from n on (a full disk) until
// cleared. Then, with the fault gone, the job must converge. Each time: `journal check` is
// clean, Slurm holds exactly the one job the journal names for the attempt (none it does not
// know), the daemon reported the condition at most once, and the attempt ends succeeded with
// its cleanup closed.
//
// A first clean run counts the calls (N). The default run covers the first and last few n and
// a stride between them; TUNEPLANE_FAULT_LOOP=all covers every n. The figures are printed.
//
// The first test runs the controller's --once loop, where every write is a commit of its own.
// The second runs the daemon's loop (Controller::run, as `serve` does), where passes run on a
// pool and writes that wait for the writer thread together share one group commit, so that one
// failed call fails every write of its group: four jobs at once, the fault armed while they are
// submitted.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <thread>

#include "config/logging.h"
#include "journal/journal_check.h"
#include "reconcile_fixture.h"
#include "support/fault_vfs.h"
#include "support/text_count.h"

namespace tpslurm::reconcile::testing {
namespace {

using model::AttemptState;
using model::CleanupStep;
using tpslurm::testing::FaultMode;
using tpslurm::testing::FaultPlan;
using tpslurm::testing::FaultVfs;
using tpslurm::testing::WriteFault;

constexpr std::string_view kReported = "the journal cannot be written: nothing new is submitted until it clears";
constexpr int kDefaultCovered = 32;  // n per mode in the default run, edges included
constexpr int kDaemonCovered = 6;    // the same for the daemon's runs, which take seconds each
constexpr int kDaemonJobs = 4;       // journaled together, so that their writes share commits
// The fault stays armed until every job is released or this much time passed; then the jobs
// have this long to converge.
constexpr std::chrono::seconds kDaemonFaultWindow{2};
constexpr std::chrono::seconds kDaemonConverge{45};

// Installed before ReconcileTest opens its journal, so the journal goes through it.
struct WithFaultVfs {
  WithFaultVfs() : vfs(FaultVfs::install()) {}
  FaultVfs& vfs;
};

using tpslurm::testing::count_of;

bool loop_all() {
  const char* loop = std::getenv("TUNEPLANE_FAULT_LOOP");
  return loop != nullptr && std::string(loop) == "all";
}

// The n to cover: all of 1..total, or about `count`: the first and last few and an even
// stride between.
std::vector<std::int64_t> covered(std::int64_t total, bool all, int count) {
  std::vector<std::int64_t> out;
  const std::int64_t edge = std::min(5, count / 4);
  const std::int64_t stride = all ? 1 : std::max<std::int64_t>(1, total / (count - 2 * edge));
  for (std::int64_t n = 1; n <= total; ++n) {
    if (all || n <= edge || n > total - edge || n % stride == 0) out.push_back(n);
  }
  return out;
}

class JournalFaultTest : protected WithFaultVfs, public ReconcileTest {
 protected:
  void SetUp() override {
    start();
    vfs.watch(settings.journal_path);
    ASSERT_TRUE(config::configure_logging("warn", model::LogFormat::text, m_log).ok());
  }
  void TearDown() override {
    vfs.clear();
    (void)config::configure_logging("warn", model::LogFormat::text);
  }


  void drive(const std::string& job_id, int rounds) {
    for (int i = 0; i < rounds; ++i) {
      once();
      advance_slurm(job_id);
    }
  }

  bool closed(const std::string& job_id) {
    auto attempts = journal().attempts(job_id);
    return attempts.ok() && attempts->size() == 1 && attempts->front().cleanup == CleanupStep::closed;
  }

  // One run of a new job with `plan` armed once the job is journaled; then the fault clears
  // and the job must converge. Returns whether the fault was reached; counts the runs whose
  // condition the daemon reported.
  bool run(const std::string& job_id, const FaultPlan& plan) {
    add_job(job_id, Shape::cpu_only);
    m_log.str("");
    vfs.reset();
    vfs.arm(plan);
    drive(job_id, 6);
    const bool reached = vfs.failures() > 0;
    vfs.clear();
    for (int i = 0; i < 10 && !closed(job_id); ++i) drive(job_id, 1);
    check_converged(job_id, plan);
    count_reports(what_of(job_id, plan));
    return reached;
  }

  static std::string what_of(const std::string& job_id, const FaultPlan& plan) {
    return job_id + " (fault at " + std::to_string(plan.at) + (plan.mode == FaultMode::once ? ", once)" : ", always)");
  }

  void check_converged(const std::string& job_id, const FaultPlan& plan) {
    const std::string what = what_of(job_id, plan);
    for (const auto& check : journal::check_journal(settings.journal_path)) {
      EXPECT_TRUE(check.ok) << what << ": journal check " << check.name << ": " << check.detail;
    }
    const auto a = attempt(job_id);
    EXPECT_EQ(a.state, AttemptState::succeeded) << what << "\n" << m_log.str();
    EXPECT_EQ(a.cleanup, CleanupStep::closed) << what << "\n" << m_log.str();
    EXPECT_EQ(journal().attempts(job_id)->size(), 1u) << what;
    const auto records = slurm_jobs(job_id);
    ASSERT_EQ(records.size(), 1u) << what << ": one Slurm job per attempt";
    EXPECT_EQ(a.slurm_job_id, records.front().job_id) << what << ": the journal knows the job Slurm holds";
  }

  // The condition is reported at most once per run, whatever the number of jobs it held.
  void count_reports(const std::string& run) {
    const int reports = count_of(m_log.str(), kReported);
    EXPECT_LE(reports, 1) << run << ": reported once\n" << m_log.str();
    m_reported += reports;
  }

  struct DaemonRun {
    bool reached = false;           // the armed fault happened
    std::int64_t window_calls = 0;  // the counted calls while the fault was armed
    Controller::JournalCounts counts;
  };

  bool all_closed(const std::vector<std::string>& ids) {
    return std::all_of(ids.begin(), ids.end(), [&](const std::string& id) { return closed(id); });
  }

  // kDaemonJobs new jobs `prefix`-1.., journaled together; the daemon runs with `plan` armed
  // until every job is released or kDaemonFaultWindow passed, then without it while Slurm moves
  // the jobs to their end, until every cleanup is closed. Then each job must have converged.
  DaemonRun run_daemon(const std::string& prefix, const FaultPlan& plan) {
    std::vector<std::string> ids;
    for (int i = 1; i <= kDaemonJobs; ++i) {
      ids.push_back(prefix + "-" + std::to_string(i));
      add_job(ids.back(), Shape::cpu_only);
    }
    m_log.str("");
    vfs.reset();
    vfs.arm(plan);
    std::atomic<int> released{0};
    start_daemon([&released](const journal::AttemptKey&, std::string_view step) {
      if (step == "released") ++released;
    });
    const auto window_end = std::chrono::steady_clock::now() + kDaemonFaultWindow;
    while (released < kDaemonJobs && std::chrono::steady_clock::now() < window_end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    DaemonRun run;
    run.window_calls = vfs.calls();
    run.reached = vfs.failures() > 0;
    vfs.clear();
    const auto deadline = std::chrono::steady_clock::now() + kDaemonConverge;
    while (!all_closed(ids) && std::chrono::steady_clock::now() < deadline) {
      for (const auto& id : ids) advance_slurm(id);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    run.counts = stop_daemon();
    for (const auto& id : ids) check_converged(id, plan);
    count_reports(what_of(prefix, plan));
    return run;
  }

  struct LoopFigures {
    int runs = 0;
    int reached = 0;
    int reported = 0;
    double seconds_per_run = 0;
    std::string text() const {
      return std::to_string(runs) + " runs, " + std::to_string(reached) + " reached their fault, " +
             std::to_string(reported) + " reported it (once each), all converged";
    }
  };

  // Each n of `ns` failed once (an I/O error), then each always from n on (a full disk):
  // `run_one(name, plan)` runs one, named `prefix` + "o" or "a" + n, and says whether its
  // fault was reached. Stops at the first failure.
  template <class RunOne>
  LoopFigures loop_faults(const std::vector<std::int64_t>& ns, const std::string& prefix, RunOne run_one) {
    LoopFigures figures;
    const auto start_time = std::chrono::steady_clock::now();
    m_reported = 0;
    for (const FaultMode mode : {FaultMode::once, FaultMode::always}) {
      for (const std::int64_t n : ns) {
        const FaultPlan plan{n, mode, mode == FaultMode::once ? WriteFault::io_error : WriteFault::disk_full};
        figures.reached += run_one(prefix + (mode == FaultMode::once ? "o" : "a") + std::to_string(n), plan) ? 1 : 0;
        ++figures.runs;
        if (HasFailure()) break;
      }
      if (HasFailure()) break;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_time).count();
    figures.seconds_per_run = seconds / std::max(1, figures.runs);
    figures.reported = m_reported;
    return figures;
  }

  std::ostringstream m_log;
  int m_reported = 0;
};

TEST_F(JournalFaultTest, EveryFailedJournalCallLeavesAConsistentJournalAndTheJobConverges) {
  // The clean run that numbers the calls.
  add_job("clean", Shape::cpu_only);
  vfs.reset();
  drive("clean", 6);
  const std::int64_t total = vfs.calls();
  ASSERT_TRUE(closed("clean")) << m_log.str();
  ASSERT_GT(total, 10) << "the fault VFS does not see the journal's I/O";

  const std::vector<std::int64_t> ns = covered(total, loop_all(), kDefaultCovered);
  const LoopFigures figures =
      loop_faults(ns, "", [this](const std::string& job_id, const FaultPlan& plan) { return run(job_id, plan); });
  EXPECT_EQ(sim->stat("submits_received"), figures.runs + 1) << "every submit is one the journal holds";
  std::cout << "journal fault loop: " << total << " journal I/O calls in one submit-to-closed run; " << ns.size()
            << " n covered per mode (" << (loop_all() ? "all" : "stride") << "), " << figures.text() << "; "
            << figures.seconds_per_run * 1000 << " ms per run\n";
}

TEST_F(JournalFaultTest, EveryFailedCallUnderTheDaemonsGroupCommitsLeavesAConsistentJournal) {
  settings.poll_interval = std::chrono::seconds(1);
  // The clean run: numbers the calls made while a fault would be armed, and shows that writes
  // shared commits (otherwise this test would not reach the group commit at all).
  const DaemonRun clean = run_daemon("clean", {});
  ASSERT_FALSE(HasFailure()) << m_log.str();
  ASSERT_GT(clean.window_calls, 10) << "the fault VFS does not see the journal's I/O";
  ASSERT_LT(clean.counts.commits, clean.counts.writes)
      << "no two writes shared a commit: the group commit was not exercised";

  const std::vector<std::int64_t> ns = covered(clean.window_calls, loop_all(), kDaemonCovered);
  const LoopFigures figures = loop_faults(
      ns, "d", [this](const std::string& prefix, const FaultPlan& plan) { return run_daemon(prefix, plan).reached; });
  EXPECT_EQ(sim->stat("submits_received"), (figures.runs + 1) * kDaemonJobs)
      << "every submit is one the journal holds";
  std::cout << "journal fault loop, daemon: " << clean.window_calls << " journal I/O calls while " << kDaemonJobs
            << " jobs were submitted (" << clean.counts.writes << " writes in " << clean.counts.commits
            << " commits in the clean run); " << ns.size() << " n covered per mode ("
            << (loop_all() ? "all" : "stride") << "), " << figures.text() << "; " << figures.seconds_per_run
            << " s per run\n";
}

}  // namespace
}  // namespace tpslurm::reconcile::testing
