// StatusBoard: what the cycle's status poll saw of each followed attempt, for its pass —
// shared by the controller's status round (which writes it) and the passes (which take what
// is new). Keyed by submit token. Thread-safe.
//
// Only news is posted: an attempt whose Slurm records differ from what the journal holds (its
// full records), or whose job slurmctld no longer reports (`absent_polls` counts the polls in
// a row that did not find it, or found another job at its id). A pass takes its entry once; if
// it could not journal what it saw, the next poll sees the same difference and posts it again.
// Unchanged attempts are only marked seen, for the poll lag.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/clock.h"
#include "model/job_snapshot.h"

namespace tpslurm::reconcile {

struct StatusEntry {
  std::vector<model::JobSnapshot> records;  // every component, read in full; empty when absent
  int absent_polls = 0;                     // > 0: slurmctld did not report the job that many polls in a row
  TimePoint at;
  // Non-empty: absent, and the attempt's id now names another job, which these words describe
  // (steps.h: conclude_id_reused). Nothing of that job is the attempt's.
  std::string id_reused;
};

class StatusBoard {
 public:
  void post(const std::string& token, StatusEntry entry);
  std::optional<StatusEntry> take(const std::string& token);
  // The poll answered for the attempt (changed or not).
  void seen(const std::string& token, TimePoint at);
  // The longest time since any of `tokens` was last seen (0 for one never seen: it is new).
  std::chrono::seconds lag(const std::vector<std::string>& tokens, TimePoint now) const;
  void forget(const std::string& token);
  // The attempt's Slurm id now names another job (`words` say which), as a full record showed
  // (a pass's read, or the poll's). slurmctld never gives the attempt's job that id back, so
  // from then on every poll posts the attempt absent with these words, whatever it reports at
  // the id, until forget().
  void note_id_reused(const std::string& token, const std::string& words);
  std::optional<std::string> id_reused(const std::string& token) const;
  // True the first time it is asked for `key` (a warning given once per run of the daemon;
  // the key is the submit token, with a suffix when an attempt has more than one warning).
  bool warn_once(const std::string& key);

 private:
  mutable std::mutex m_mutex;
  std::map<std::string, StatusEntry> m_entries;
  std::map<std::string, TimePoint> m_seen;
  std::set<std::string> m_warned;
  std::map<std::string, std::string> m_id_reused;
};

}  // namespace tpslurm::reconcile
