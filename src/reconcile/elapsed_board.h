// ElapsedBoard: how long an attempt has been in a state (blocked since its intent, pending
// since its release, signalled since a cancel's checkpoint signal), measured so that a step of
// the wall clock while the daemon runs neither shortens nor stretches it. The quiet period of
// `resolve --absent`, TUNEPLANE_MAX_PENDING and a cancel's grace are read from here, never from
// the wall clock alone.
//
// The start of the state is a journaled wall-clock time (it must survive a restart), so the
// first time this process asks about an attempt it takes the wall clock's word (now minus the
// start, never negative); from then on it adds the monotonic clock's time since. A step while
// the daemon was down still counts (nothing watched it). Keyed by what is measured and the
// submit token. Thread-safe.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "base/clock.h"

namespace tpslurm::reconcile {

class ElapsedBoard {
 public:
  explicit ElapsedBoard(const Clock& clock) : m_clock(clock) {}

  // How long since `since` (a journaled wall-clock time) the state keyed `key` has lasted.
  std::chrono::seconds since(const std::string& key, TimePoint since);
  // Forgets what was not asked about for `idle` (attempts that left the state).
  void forget_idle(std::chrono::seconds idle);
  std::size_t size() const;

 private:
  struct Entry {
    std::chrono::seconds at_first_sight;  // the wall clock's word when first asked
    SteadyPoint first_sight;
    SteadyPoint last_asked;
  };
  const Clock& m_clock;
  mutable std::mutex m_mutex;
  std::map<std::string, Entry> m_entries;
};

}  // namespace tpslurm::reconcile
