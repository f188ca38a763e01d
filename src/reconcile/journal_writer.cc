#include "reconcile/journal_writer.h"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <memory>
#include <utility>

namespace tpslurm::reconcile {

JournalWriter::JournalWriter(journal::Journal& journal, std::optional<boost::asio::any_io_executor> writer,
                             metrics::Metrics* metrics, std::chrono::microseconds gather)
    : m_journal(journal), m_writer(std::move(writer)), m_metrics(metrics), m_gather(gather) {}

void JournalWriter::count(std::int64_t writes) {
  std::lock_guard lock(m_mutex);
  ++m_commits;
  m_writes += writes;
}

std::int64_t JournalWriter::commits() const {
  std::lock_guard lock(m_mutex);
  return m_commits;
}

std::int64_t JournalWriter::writes() const {
  std::lock_guard lock(m_mutex);
  return m_writes;
}

std::size_t JournalWriter::queued() const {
  std::lock_guard lock(m_mutex);
  return m_queue.size();
}

Status JournalWriter::commit_alone(const Change& change) {
  const auto start = std::chrono::steady_clock::now();
  Status done = change(m_journal);
  if (m_metrics != nullptr) m_metrics->observe_journal_commit(std::chrono::steady_clock::now() - start);
  count(1);
  return done;
}

Status JournalWriter::write(const Change& change, Urgency urgency) {
  if (!m_writer) return commit_alone(change);
  Pending pending{&change, {}};
  auto result = pending.done.get_future();
  if (m_gather.count() == 0) urgency = Urgency::now;
  bool post = false;
  {
    std::unique_lock lock(m_mutex);
    if (m_closed) {
      lock.unlock();
      std::lock_guard serial(m_serial);
      commit_group({&pending});
      return result.get();
    }
    if (std::this_thread::get_id() == m_writer_thread) {
      lock.unlock();
      return commit_alone(change);
    }
    m_queue.push_back(&pending);
    post = !std::exchange(urgency == Urgency::now ? m_now_posted : m_gathering, true);
  }
  if (post && urgency == Urgency::now) {
    boost::asio::post(*m_writer, [this] { drain(Urgency::now); });
  } else if (post) {
    // A timer of its own each time: armed here, on the caller's thread, and touched again only
    // by its handler on the writer thread.
    auto timer = std::make_shared<boost::asio::steady_timer>(*m_writer, m_gather);
    timer->async_wait([this, timer](const boost::system::error_code&) { drain(Urgency::gather); });
  }
  return result.get();
}

void JournalWriter::close() {
  {
    std::lock_guard lock(m_mutex);
    m_closed = true;
  }
  drain(Urgency::now);
}

// On the writer thread (or in close()): everything queued since the last drain, as one group.
// `trigger` is the drain that ran (a later one may find nothing left).
void JournalWriter::drain(Urgency trigger) {
  std::vector<Pending*> batch;
  {
    std::lock_guard lock(m_mutex);
    batch.swap(m_queue);
    (trigger == Urgency::now ? m_now_posted : m_gathering) = false;
  }
  if (batch.empty()) return;
  std::lock_guard serial(m_serial);
  commit_group(batch);
}

void JournalWriter::commit_group(const std::vector<Pending*>& batch) {
  const auto start = std::chrono::steady_clock::now();
  if (Status begun = m_journal.begin_group(); !begun.ok()) {
    for (Pending* p : batch) p->done.set_value(begun);
    return;
  }
  std::vector<Status> results;
  results.reserve(batch.size());
  for (Pending* p : batch) results.push_back((*p->change)(m_journal));
  const Status committed = m_journal.end_group();
  const auto took = std::chrono::steady_clock::now() - start;
  count(static_cast<std::int64_t>(batch.size()));
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (m_metrics != nullptr) m_metrics->observe_journal_commit(took);
    // A write that failed keeps its own error; the others share the commit's.
    batch[i]->done.set_value(results[i].ok() ? committed : results[i]);
  }
}

}  // namespace tpslurm::reconcile
