// ReconcileTest: the reconciler in-process against tools/slurmrestd-sim over real HTTP, with
// a real SQLite journal and a real attempt tree in a temporary directory. Jobs are added as
// `submit` adds them (the journal row and the ingest credential); once() runs the
// controller's --once loop. The simulator runs with a manual clock and manual timing, so jobs
// stay where they are until a test moves them.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "../slurm/sim_process.h"
#include "journal/journal.h"
#include "model/catalogs.h"
#include "model/settings.h"
#include "reconcile/controller.h"
#include "slurm/curl_transport.h"
#include "slurm/request_budget.h"
#include "slurm/rest_client.h"
#include "support/temp_dir.h"

namespace tpslurm::reconcile::testing {

// A token source that hands out a good token, or after bad_after(n) n more good ones and then
// a token whose signature does not verify. Thread-safe.
class TurningTokens final : public slurm::TokenSource {
 public:
  explicit TurningTokens(std::unique_ptr<slurm::TokenSource> good) : m_good(std::move(good)) {}
  Result<slurm::Credentials> credentials() override;
  // A job's user's: the good source's own (bad_after() turns the service's token alone).
  Result<slurm::Credentials> credentials_for(std::string_view user) override { return m_good->credentials_for(user); }
  std::string describe() const override { return m_good->describe(); }
  void bad_after(int calls) { m_good_left = calls; }

 private:
  std::unique_ptr<slurm::TokenSource> m_good;
  std::atomic<int> m_good_left{-1};  // -1: always good
};

// Every release the simulator serves, each with its own dialect, for tests that run in all of
// them; and the test name of one ("Slurm26_05_3").
inline auto every_release() {
  return ::testing::Values("22.05.8", "23.11.11", "24.05.8", "24.11.7", "25.05.0", "25.11.7", "26.05.3");
}
std::string release_test_name(const ::testing::TestParamInfo<const char*>& param_info);

enum class Shape { gpu_single, three_pools, cpu_only };
std::string_view to_string(Shape shape);

class ReconcileTest : public ::testing::Test {
 protected:
  ReconcileTest();
  ~ReconcileTest() override;

  // Starts the simulator (`args` after the manual clock/timing) and the client for `dialect`.
  void start(std::vector<std::string> args = {}, std::string dialect = "v0.0.45");

  // Journals a job of `shape` as `submit` does; with `unix_user`, as per-user mode accepts it.
  void add_job(const std::string& job_id, Shape shape, int max_attempts = 1, const std::string& unix_user = {});
  // Journals it as serve's API does: through the running daemon's journal writer
  // (Controller::commit_from_outside).
  void add_job_through_daemon(const std::string& job_id, Shape shape);
  // A sweep whose runs are `job_ids`, each of `shape` (journal::Journal::add_sweep).
  void add_sweep(const std::string& sweep_id, const std::vector<std::string>& job_ids, Shape shape,
                 std::optional<int> max_running);
  // The controller's --once loop. One controller serves every call, as one daemon would:
  // what it keeps between cycles (the status poll's absent counts, the sweep's rounds) carries
  // over; restart() drops it, as a daemon restart does (the next cycle is a first one again).
  CycleReport once();
  void restart();
  // The daemon's loop (Controller::run, as `serve` runs it: passes on a pool of `threads`, every
  // write through the writer thread, writes that wait together in one group commit) on a
  // thread of its own, until stop_daemon(). `observer` sees every journaled step. Jobs are
  // added before it starts: the test's writes share the daemon's connection.
  // stop_daemon() returns its journal writes and commits.
  void start_daemon(StepObserver observer = {}, int threads = 4);
  Controller::JournalCounts stop_daemon();
  // The passes the running daemon has run so far (Controller::passes).
  std::int64_t daemon_passes() const { return m_daemon->passes(); }

  // The journal writes and commits of once()'s controller so far.
  Controller::JournalCounts once_counts() const { return m_controller->journal_counts(); }
  journal::Journal& journal() { return *m_journal; }
  journal::AttemptRecord attempt(const std::string& job_id, int number = 1);
  journal::JobRecord job(const std::string& job_id);
  // The kinds of the job's events, in order ("attempt.state:prepared->submitting", "search", ...).
  std::vector<std::string> story(const std::string& job_id);

  // Slurm's records (one per component) whose name is the attempt's job name.
  std::vector<model::JobSnapshot> slurm_jobs(const std::string& job_id, int number = 1);
  // Distinct het jobs (leaders) among them.
  int slurm_job_count(const std::string& job_id, int number = 1);
  // The simulator's view of a job (GET /sim/jobs/{id}).
  boost::json::value sim_view(std::uint32_t id);

  void fault(const std::string& rule);
  // POST /sim/jobs/{id}/state with `body`; the simulated clock moved by `seconds`.
  void step(std::uint32_t id, const std::string& body);
  void advance_sim(int seconds);
  // Moves the job's Slurm records one step towards their end, as Slurm would once released:
  // pending (not held) -> running -> completed (completing) -> completed. Reads only Slurm.
  void advance_slurm(const std::string& job_id);
  // A controller that lost its state: slurmctld forgets every job (slurmdbd keeps them).
  void forget_slurm_jobs();
  // The detail (JSON) of the job's last move into `to_state`; empty when none.
  std::string event_detail(const std::string& job_id, const std::string& to_state);
  // How many of the job's events are of `kind`.
  int count_events(const std::string& job_id, const std::string& kind);
  // Submits, behind the reconciler's back, a held copy carrying `original`'s tag (what a proxy
  // that re-sent the POST leaves behind); returns its job id.
  std::uint32_t submit_copy(const model::JobSnapshot& original);
  void set_desire_cancel(const std::string& job_id, const std::string& reason = "test");

  // The token the client sends turns bad (its signature no longer verifies, as after a key
  // rotation: slurmctld refuses it) after `calls` more requests; mend_token() makes it good.
  void turn_token_bad_after(int calls) { m_turning->bad_after(calls); }
  void mend_token() { m_turning->bad_after(-1); }

  // Steps the local clock every part reads (journal, request budget, client, controller).
  void step_local_clock(std::chrono::milliseconds by) { m_clock.step(by); }
  void pass_local_time(std::chrono::milliseconds by) { m_clock.pass(by); }
  const Clock& local_clock() const { return m_clock; }
  // The client's request budget (the controller calls begin_cycle on it).
  slurm::RequestBudget& budget() { return *m_budget; }
  // The client the reconciler uses (operator answers that read Slurm share it).
  slurm::SlurmClient& slurm() { return *m_client; }

  model::Settings settings;
  // Set before start(): the client asks budget() before each call, as the daemon's does (by
  // default the tests' client has no back-off).
  bool client_asks_budget = false;
  // Set before start(): the limits of budget().
  slurm::BudgetLimits budget_limits;
  // Set before start(): the client's tokens are minted from the simulator's key
  // (slurm::MintingTokenSource) for this user as the service identity, and for each job's
  // user as that user (per-user mode). Empty: root's token, root acting for a job's user.
  std::string minting_service_user;
  tpslurm::testing::TempDir dir;
  std::unique_ptr<slurm::testing::SimProcess> sim;

 private:
  journal::NewJob new_job(const std::string& job_id, Shape shape, int max_attempts, const std::string& unix_user = {});

  model::Catalogs m_catalogs;
  SteppedClock m_clock;
  std::unique_ptr<journal::Journal> m_journal;
  std::unique_ptr<slurm::TokenSource> m_tokens;
  TurningTokens* m_turning = nullptr;  // m_tokens
  std::unique_ptr<slurm::CurlTransport> m_transport;
  std::unique_ptr<slurm::RequestBudget> m_budget;
  std::unique_ptr<slurm::RestClient> m_client;
  std::unique_ptr<Controller> m_controller;
  std::unique_ptr<Controller> m_daemon;
  std::thread m_daemon_thread;
  std::string m_key = "tpcanary-credential-key-00000000";
};

}  // namespace tpslurm::reconcile::testing
