// JournalWriter: every journal write of the daemon happens on one thread.
//
// Passes run on a small pool (their HTTP and filesystem calls block); when a pass must write
// — an intent before an act, a result after it — it hands the write to the writer thread and
// waits for the commit, so the protocol's order (intent committed before any byte is sent)
// holds, and SQLite sees one writer. Reads go straight to the journal (it is thread-safe).
// Called on the writer thread itself, a write runs inline. Thread-safe.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <functional>
#include <optional>
#include <thread>

#include "base/result.h"
#include "journal/journal.h"
#include "metrics/metrics.h"

namespace tpslurm::reconcile {

class JournalWriter {
 public:
  // Without an executor every write runs inline on the caller's thread (tests, one-shot tools).
  // With `metrics` each write's time (the change and its commit, not the wait for the writer
  // thread) is observed.
  explicit JournalWriter(journal::Journal& journal, std::optional<boost::asio::any_io_executor> writer = {},
                         metrics::Metrics* metrics = nullptr);

  // The writer thread: set by the controller once its event loop runs there.
  void set_writer_thread(std::thread::id id) { m_writer_thread = id; }

  Status write(const std::function<Status(journal::Journal&)>& change);
  journal::Journal& read() { return m_journal; }

 private:
  Status commit(const std::function<Status(journal::Journal&)>& change);

  journal::Journal& m_journal;
  std::optional<boost::asio::any_io_executor> m_writer;
  metrics::Metrics* m_metrics;
  std::thread::id m_writer_thread;
};

}  // namespace tpslurm::reconcile
