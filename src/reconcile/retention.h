// Retention of attempt directories (TUNEPLANE_ATTEMPT_RETENTION): a closed attempt's whole
// directory is removed once its cleanup has been closed that long; the journal keeps the
// attempt's record, its log hashes and every event, and a `retention` event says when the
// files went (and, when the removal took more than one slice, how many). Off (0) by default.
//
// The job filled the directory (a million files, a tree thousands deep), so it is removed a
// slice at a time (storage/attempt_removal.h), never inside the cycle's status round:
// find_due(), with each sweep, reads which attempts are due (one read of the journal); work()
// removes for one slice, going on with the same directory the next time. The controller runs
// one slice per tick on a pool thread (so retention holds at most one pass thread, for one
// slice), and in once mode slices until none is left. A directory that cannot be removed is
// logged and left for the next sweep. Writes go through the JournalWriter.
//
// Thread-safe: find_due() and work() may run on different threads; work() one call at a time.
#pragma once

#include <deque>
#include <mutex>
#include <stop_token>
#include <string>

#include "journal/records.h"
#include "reconcile/services.h"

namespace tpslurm::reconcile {

class Retention {
 public:
  explicit Retention(Services& services) : m_services(services) {}

  // Queues the closed attempts whose directories are due and not queued yet.
  void find_due();
  // Removes for one slice (`stop`: the daemon's stop request ends it early); returns whether a
  // due directory is left.
  bool work(std::stop_token stop = {});
  bool pending() const;

 private:
  struct Due {
    journal::AttemptKey key;
    std::string dir;
    int slices = 0;
    bool found = false;  // something was there to remove
  };
  void finish(const Due& due);

  Services& m_services;
  mutable std::mutex m_mutex;
  std::deque<Due> m_due;
};

}  // namespace tpslurm::reconcile
