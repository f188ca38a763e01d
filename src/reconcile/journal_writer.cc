#include "reconcile/journal_writer.h"

#include <boost/asio/post.hpp>
#include <future>

namespace tpslurm::reconcile {

JournalWriter::JournalWriter(journal::Journal& journal, std::optional<boost::asio::any_io_executor> writer)
    : m_journal(journal), m_writer(std::move(writer)) {}

Status JournalWriter::write(const std::function<Status(journal::Journal&)>& change) {
  if (!m_writer || std::this_thread::get_id() == m_writer_thread) return change(m_journal);
  std::promise<Status> done;
  auto result = done.get_future();
  boost::asio::post(*m_writer, [&] { done.set_value(change(m_journal)); });
  return result.get();
}

}  // namespace tpslurm::reconcile
