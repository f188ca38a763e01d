// RetryBoard: spaced retries of a step that keeps meeting the same answer (a job Slurm does not
// know, a record that does not carry the attempt's tag, a source of evidence that does not
// answer), so that however often an attempt is woken — every cycle, every journal change — the
// step asks Slurm again only when its time has come, and says so once.
//
// Keyed by the submit token and what is retried. After the n-th failure in a row the next try
// is due 5 s × 2^(n-1) later, at most 5 minutes, on the monotonic clock (a step of the wall
// clock changes nothing). Kept in memory: a restart asks at once again. Thread-safe.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"

namespace tpslurm::reconcile {

class RetryBoard {
 public:
  explicit RetryBoard(const Clock& clock) : m_clock(clock) {}

  // How long until the next try of `what` for the attempt `token` is due; empty when due now.
  std::optional<std::chrono::milliseconds> wait_left(const std::string& token, std::string_view what) const;
  // The try failed; returns how many tries have failed in a row (1 the first time).
  int failed(const std::string& token, std::string_view what);
  // The try settled: the next one is due at once.
  void forget(const std::string& token, std::string_view what);
  // Every try of the attempt (it has moved on).
  void forget_attempt(const std::string& token);
  std::size_t size() const;

 private:
  struct Entry {
    int failures = 0;
    SteadyPoint due;
  };
  const Clock& m_clock;
  mutable std::mutex m_mutex;
  std::map<std::string, Entry> m_entries;
};

}  // namespace tpslurm::reconcile
