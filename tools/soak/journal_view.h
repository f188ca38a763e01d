// JournalView: the soak's read-only look at the daemon's journal (SQLite, WAL: reading beside
// the running daemon is safe and changes nothing). Each call opens its own read-only
// connection, so it sees the latest commit and holds no snapshot between calls. Errors are
// SQLite's words as a Result. Not thread-safe per object.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/result.h"

namespace tpslurm::soak {

struct AttemptRow {
  std::string job_id;
  int number = 0;
  std::string state;
  std::string cleanup;
  std::int64_t slurm_job_id = 0;  // 0: none
  std::string submit_token;
  std::string job_phase;
  std::string desire;       // the job's: run or cancel
  std::string tag_name;     // the Slurm job name it was given (empty before it was prepared)
  std::string attempt_dir;  // its directory under the storage root (empty before it was prepared)
  std::string signalled_at;  // when a cancel's checkpoint signal was given (empty: never)
};

// "job/number": how the soak names an attempt.
using AttemptKey = std::string;

class JournalView {
 public:
  explicit JournalView(std::string path) : m_path(std::move(path)) {}

  // Attempts a kill may have left uncertain (preparing, submitting, submit_unknown, submitted;
  // not `prepared`, which is a queue with nothing sent): what a restart must act on, each with its progress marker
  // (state, and when a blocked one was last searched for); an attempt has been acted on when its marker changed.
  Result<std::map<AttemptKey, std::string>> in_flight() const;
  // The progress marker of each of `keys` now (a key not found is left out).
  Result<std::map<AttemptKey, std::string>> markers(const std::map<AttemptKey, std::string>& keys) const;
  // Attempts blocked by a lost submit answer (submit_unknown).
  Result<std::vector<AttemptKey>> blocked() const;
  // journal_meta `last_status_poll`, empty when never written.
  Result<std::string> last_status_poll() const;
  // Counts by what the soak prints: jobs, attempts, live attempts (submitted, pending, running).
  struct Counts {
    std::int64_t jobs = 0, attempts = 0, live = 0, unended_jobs = 0, open_cleanups = 0;
  };
  Result<Counts> counts() const;
  // Every attempt with its job's phase, and a row with number 0 for each job without one.
  Result<std::vector<AttemptRow>> attempts() const;
  // Each ended attempt's retry decision, as its end event says it ("yes: ..." or "no: ...").
  Result<std::map<AttemptKey, std::string>> retry_decisions() const;
  // Whether a control (`safe_mode`, `paused`) is set.
  Result<bool> control_set(const std::string& name) const;
  // The newest event's sequence number (0: none).
  Result<std::int64_t> last_event_seq() const;
  // Attempts an event after `after_seq` moved into `state`.
  Result<std::vector<AttemptKey>> entered(const std::string& state, std::int64_t after_seq) const;

 private:
  std::string m_path;
};

// Whether an attempt's state is an end (succeeded, failed, cancelled, lost, rejected, abandoned).
bool attempt_ended(const std::string& state);
// Whether a job's phase is an end (succeeded, failed, cancelled, lost).
bool phase_ended(const std::string& phase);

}  // namespace tpslurm::soak
