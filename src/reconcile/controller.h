// Controller: runs the reconciler — the one owner of timers, back-off, the work queue, the
// thread pool for blocking I/O, the request budget's windows and the pre-flight before each
// cycle's submits (docs/architecture.md §2).
//
// Daemon mode (run()): a Boost.Asio event loop on the calling thread — which is also the
// journal's only writer (JournalWriter) — and a small pool on which passes, the cycle's search
// by tag, the periodic sweep and retention's removals run. Each poll interval a cycle starts:
// the budget starts a new window, the next submit runs a pre-flight, one bulk status poll reads
// every attempt Slurm holds (status_round.h; the jobs it has news for get a pass as soon as it
// ends), one batch search serves every attempt that needs one, every live job gets a pass, and
// on the first cycle and every `sweep_every` after it the sweep runs and retention finds the
// directories due, after the poll's news is handed out (the sweep reads the listing the poll's
// pending reasons read, if they did: one full listing a cycle at most, cycle_listing.h).
// Retention's removals are not part of the cycle: one slice of them per tick, on one pool
// thread (retention.h). A pass that did one slice of long work on an attempt's files
// (PassResult::sliced) queues its job again at once, behind the jobs woken before it. Between
// cycles, the journal's data_version is read every tick (200 ms): a new job or desire from the
// CLI gets its pass at once, not at the next cycle. Never two passes for one job at once.
// SIGTERM/SIGINT: no new pass starts, the ones in flight finish (a slice of file work ends at
// its next read or entry: Services::stop), run() returns 0; a second signal exits at once
// (status 1).
//
// Once mode (run_once()): cycles back to back on the calling thread, passes one after the
// other, until a cycle journals nothing and no pass was cut at the end of a slice (retention's
// removals run to their end after each sweep); then returns that run's report. A controller
// may run_once() again: what it keeps between cycles (absent counts, rounds) carries over.
// Tests and the crash matrix use it.
//
// Conditions that stop submitting for every job — the journal or the storage root cannot be
// written — are logged once when they start and once when they clear; meanwhile nothing new is
// prepared or sent, and what Slurm holds is still followed.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "journal/journal.h"
#include "metrics/metrics.h"
#include "reconcile/services.h"
#include "reconcile/sweep.h"
#include "slurm/request_budget.h"

namespace tpslurm::reconcile {

struct ControllerParts {
  journal::Journal& journal;
  slurm::SlurmClient& slurm;
  const model::Settings& settings;
  const Catalogs& catalogs;
  const Clock& clock;
  std::string hmac_key;
  slurm::RequestBudget* budget = nullptr;  // begin_cycle() each cycle when given
  int threads = 4;
  int sweep_every = kSweepEvery;  // cycles between orphan sweeps (the first cycle sweeps); 0: never
  StepObserver observer;          // see services.h
  // serve's metrics (poll lag, submit outcomes, journal commits); none: not recorded.
  metrics::Metrics* metrics = nullptr;
};

struct CycleReport {
  int cycles = 0;
  int passes = 0;
  int progressed = 0;  // passes that journaled something
};

class Controller {
 public:
  explicit Controller(ControllerParts parts);
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  // `serving`, when given, is called once on the loop's thread when signals are handled and the
  // first tick is scheduled: from then on SIGTERM stops the daemon gracefully (readiness).
  int run(const std::function<void()>& serving = {});
  CycleReport run_once();
  // Asks run() to stop as a first SIGTERM does; callable from any thread.
  void request_stop();

  // A change journaled for the platform's API (its new jobs): through the journal's one
  // writer, so it shares the reconciler's commits, and once it is committed the jobs it names
  // (`woken`: the ones it wrote) get a pass at once, not at the next cycle. The other jobs are
  // not woken: a sweep's every batch would otherwise give every live job a pass. While such
  // commits keep coming, no new attempt begins (intake_priority.h). Returns the
  // commit's result. Callable from any thread, also after run() has returned (then the change
  // runs on the caller's thread and wakes nothing: the next start passes every live job).
  Status commit_from_outside(const std::function<Status(journal::Journal&)>& change, std::vector<std::string> woken);

  // The journal writes made and the commits they took since construction: writes that waited
  // for the writer thread together share one commit. Callable from any thread.
  struct JournalCounts {
    std::int64_t writes = 0;
    std::int64_t commits = 0;
  };
  JournalCounts journal_counts() const;
  // Passes run since construction, in either mode. Callable from any thread.
  std::int64_t passes() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> m_impl;
};

}  // namespace tpslurm::reconcile
