// JournalWriter: every journal write of the daemon happens on one thread, in group commits.
//
// Passes run on a small pool (their HTTP and filesystem calls block); when a pass must write
// — an intent before an act, a result after it — it hands the write to the writer thread and
// waits for the commit, so the protocol's order (intent committed before any byte is sent)
// holds, and SQLite sees one writer. The writes that wait while the writer is busy go
// together: one journal group (Journal::begin_group), one commit and one fsync for all of
// them, each still all or nothing on its own; none of them returns before that commit, and
// when it fails every one of them gets the failure. Given a `gather` time, the first write of
// a group waits that long for others to join it (a sweep's passes write within a millisecond
// of each other far more often than during one commit), unless a write that asks for its
// commit `now` comes meanwhile (the API's new jobs, which their clients wait for). A change
// that makes several writes (the API's new jobs) shares that commit too, even when it waits
// alone. Reads go straight to the journal (it is thread-safe). Called on the writer thread
// itself, a write runs inline.
//
// Writes from outside the reconciler (the API's submission queue) may outlive the writer
// thread's loop: close() — the controller calls it when its loop has returned — commits what
// still waits, and every write after it runs inline on its caller's thread, one at a time.
// Thread-safe.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "base/result.h"
#include "journal/journal.h"
#include "metrics/metrics.h"

namespace tpslurm::reconcile {

class JournalWriter {
 public:
  using Change = std::function<Status(journal::Journal&)>;
  enum class Urgency { gather, now };

  // Without an executor every write runs inline on the caller's thread (tests, one-shot tools).
  // With `metrics` each commit's time (the changes and their commit, not the wait for the
  // writer thread) is observed once per write it served.
  explicit JournalWriter(journal::Journal& journal, std::optional<boost::asio::any_io_executor> writer = {},
                         metrics::Metrics* metrics = nullptr,
                         std::chrono::microseconds gather = std::chrono::microseconds(0));

  // The writer thread: set by the controller once its event loop runs there.
  void set_writer_thread(std::thread::id id) { m_writer_thread = id; }

  Status write(const Change& change, Urgency urgency = Urgency::gather);
  journal::Journal& read() { return m_journal; }

  // The writer thread serves no more writes: the waiting ones are committed now, on the
  // caller's thread, and later ones inline. Idempotent.
  void close();

  // Commits made and writes served since construction (a group is one commit), and the
  // writes waiting for the writer thread now.
  std::int64_t commits() const;
  std::int64_t writes() const;
  std::size_t queued() const;

 private:
  struct Pending {
    const Change* change;
    std::promise<Status> done;
  };
  Status commit_alone(const Change& change);
  void drain(Urgency trigger);
  void commit_group(const std::vector<Pending*>& batch);
  void count(std::int64_t writes);

  journal::Journal& m_journal;
  std::optional<boost::asio::any_io_executor> m_writer;
  metrics::Metrics* m_metrics;
  const std::chrono::microseconds m_gather;
  std::thread::id m_writer_thread;
  std::mutex m_serial;  // held while a group commits, and by the inline writes after close()
  mutable std::mutex m_mutex;
  std::vector<Pending*> m_queue;  // waiting for the next drain
  bool m_gathering = false;       // a drain after the gather time is armed
  bool m_now_posted = false;      // a drain at once is posted
  bool m_closed = false;
  std::int64_t m_commits = 0;
  std::int64_t m_writes = 0;
};

}  // namespace tpslurm::reconcile
