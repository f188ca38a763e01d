// SliceBoard: the long work on an attempt's files that its passes do one slice at a time
// (storage/work_slice.h) — the removal of its credentials/ and scratch/, the seal of its logs/ —
// kept between the passes: the seal's state so far (storage::LogSealer) and what the slices so
// far did, for the event that ends the work. Keyed by submit token; each entry belongs to the
// cleanup step it was begun in.
//
// A pass takes its attempt's work off the board and puts it back when its slice ended before
// the work did; the controller never runs two passes of one job at once, so nothing else
// touches it meanwhile. Kept in memory only (the journal stays the only record): after a
// restart a removal goes on from what the files show, and a seal begins again within its
// bounds. Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "base/clock.h"
#include "model/attempt_state.h"
#include "storage/log_seal.h"

namespace tpslurm::reconcile {

struct SlicedWork {
  model::CleanupStep step = model::CleanupStep::none;
  std::unique_ptr<storage::LogSealer> sealer;  // when sealing
  int slices = 0;                              // done so far by this process
  std::uint64_t entries = 0;                   // directory entries removed by them
};

class SliceBoard {
 public:
  explicit SliceBoard(const Clock& clock) : m_clock(clock) {}

  // The attempt's work in `step`, taken off the board; a fresh one when there is none, or only
  // one of another step (an operator moved the cleanup on).
  SlicedWork take(const std::string& token, model::CleanupStep step);
  // Back on the board, unfinished, for the attempt's next pass.
  void put(const std::string& token, SlicedWork work);
  // Drops work no pass has taken for `idle`: its attempt moved on without it.
  void forget_idle(std::chrono::seconds idle);
  std::size_t size() const;

 private:
  struct Entry {
    SlicedWork work;
    SteadyPoint put_at;
  };
  const Clock& m_clock;
  mutable std::mutex m_mutex;
  std::map<std::string, Entry> m_entries;
};

}  // namespace tpslurm::reconcile
