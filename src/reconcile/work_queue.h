// WorkQueue: which job gets the next pass — the controller's work queue, fair and first in,
// first out, so that jobs woken again and again (every cycle wakes every live job) can never
// starve the ones behind them. A job is queued at most once; waking a queued job keeps its
// place; waking a job whose pass is running queues it again when that pass is done (a desire
// that arrived mid-pass is not lost). A back-off wakes a job at a later time. Used on the
// controller's event loop only: not thread-safe.
#pragma once

#include <chrono>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace tpslurm::reconcile {

class WorkQueue {
 public:
  using Time = std::chrono::steady_clock::time_point;

  void wake(const std::string& job);
  void wake_at(const std::string& job, Time at);
  // The next job to pass now, marked running; empty when none is ready (or all are running).
  std::optional<std::string> next(Time now);
  void done(const std::string& job);

  std::size_t running() const { return m_running.size(); }
  std::size_t ready() const { return m_ready.size(); }

 private:
  std::deque<std::string> m_ready;
  std::set<std::string> m_queued;   // in m_ready
  std::set<std::string> m_running;  // its pass is running
  std::set<std::string> m_again;    // woken while running
  std::multimap<Time, std::string> m_later;
};

}  // namespace tpslurm::reconcile
