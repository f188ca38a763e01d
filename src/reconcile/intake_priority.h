// IntakePriority: the platform's new jobs are journaled before new attempts begin.
//
// While a sweep is still coming in through the API (its batches of new jobs committed less
// than kQuiet apart), no new attempt is begun: preparing one (rendering, writing and flushing
// its directory) takes the CPU and the disk that the API needs to journal the next requests,
// and on a machine of few cores a sweep's last 201 would come seconds later. Attempts already
// begun go on (their submits, identifies and releases), and so does everything Slurm holds.
// Bounded: a hold lasts at most kLongest, and after one that long the passes have as long
// again before the next, so a steady stream of submissions takes at most half the time.
//
// noted() when a batch of new jobs is committed (Controller::commit_from_outside), from any
// thread; holding_for() from the passes: how much longer the hold lasts, empty when a new
// attempt may begin now. Times are the injected Clock's steady() readings, passed in: a step
// of the wall clock changes nothing. Thread-safe.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>

#include "base/clock.h"

namespace tpslurm::reconcile {

class IntakePriority {
 public:
  static constexpr std::chrono::milliseconds kQuiet{100};
  static constexpr std::chrono::milliseconds kLongest{1000};

  void noted(SteadyPoint at);
  std::optional<std::chrono::milliseconds> holding_for(SteadyPoint now) const;

 private:
  mutable std::mutex m_mutex;
  bool m_noted = false;   // a batch ever came
  SteadyPoint m_last{};   // the last batch
  SteadyPoint m_began{};  // the first batch of this run of batches
};

}  // namespace tpslurm::reconcile
