#include "reconcile/journal_writer.h"

#include <boost/asio/post.hpp>
#include <future>

namespace tpslurm::reconcile {

JournalWriter::JournalWriter(journal::Journal& journal, std::optional<boost::asio::any_io_executor> writer,
                             metrics::Metrics* metrics)
    : m_journal(journal), m_writer(std::move(writer)), m_metrics(metrics) {}

Status JournalWriter::commit(const std::function<Status(journal::Journal&)>& change) {
  if (m_metrics == nullptr) return change(m_journal);
  const auto start = std::chrono::steady_clock::now();
  Status done = change(m_journal);
  m_metrics->observe_journal_commit(std::chrono::steady_clock::now() - start);
  return done;
}

Status JournalWriter::write(const std::function<Status(journal::Journal&)>& change) {
  if (!m_writer || std::this_thread::get_id() == m_writer_thread) return commit(change);
  std::promise<Status> done;
  auto result = done.get_future();
  boost::asio::post(*m_writer, [&] { done.set_value(commit(change)); });
  return result.get();
}

}  // namespace tpslurm::reconcile
