#include "api/journal_watch.h"

#include <sys/inotify.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cerrno>
#include <cstring>

#include "base/file_system.h"
#include "config/logging.h"

namespace tpslurm::api {

namespace asio = boost::asio;
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);
constexpr std::chrono::milliseconds kSettleDelays[] = {std::chrono::milliseconds(50), std::chrono::milliseconds(1000)};

Result<std::unique_ptr<JournalWatch>> JournalWatch::start(asio::io_context& io, const std::string& journal_path) {
  const int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) return system_error("watch", journal_path, errno);
  const std::string directory = parent_directory(journal_path);
  if (::inotify_add_watch(fd, directory.c_str(), IN_MODIFY | IN_CREATE | IN_MOVED_TO) < 0) {
    const int saved = errno;
    ::close(fd);
    return system_error("watch the journal's directory", directory, saved);
  }
  const std::string name = journal_path.substr(journal_path.find_last_of('/') + 1) + "-wal";
  std::unique_ptr<JournalWatch> watch(new JournalWatch(io, fd, name));
  asio::co_spawn(io, watch->read_events(), asio::detached);
  return watch;
}

JournalWatch::JournalWatch(asio::io_context& io, int fd, std::string wal_name)
    : m_inotify(io, fd), m_wal_name(std::move(wal_name)) {}

asio::awaitable<void> JournalWatch::read_events() {
  char* const buffer = m_buffer.data();
  while (true) {
    auto [error, bytes] = co_await m_inotify.async_read_some(asio::buffer(m_buffer), kTuple);
    if (error == asio::error::operation_aborted) co_return;
    if (error) {
      config::log_warn({}, "API: the journal watch stopped (" + error.message() +
                               "); the change feed now answers each long poll when its wait ends");
      co_return;
    }
    bool wal = false;
    for (std::size_t at = 0; at + sizeof(struct inotify_event) <= bytes;) {
      const auto* event = reinterpret_cast<const struct inotify_event*>(buffer + at);
      if (event->len > 0 && m_wal_name == event->name) wal = true;
      if ((event->mask & IN_Q_OVERFLOW) != 0) wal = true;  // events were dropped: assume a change
      at += sizeof(struct inotify_event) + event->len;
    }
    if (wal) {
      changed();
      settle_after_write();
    }
  }
}

// A commit is written to the WAL, then synced, and only then visible, with no file event in
// between: wake the waiters again once the writes have stopped for a moment, and once more
// later for a slow sync.
void JournalWatch::settle_after_write() {
  ++m_writes;
  if (m_settling) return;
  m_settling = true;
  asio::co_spawn(m_inotify.get_executor(), settle(), asio::detached);
}

asio::awaitable<void> JournalWatch::settle() {
  asio::steady_timer timer(m_inotify.get_executor());
  for (const auto delay : kSettleDelays) {
    std::uint64_t writes = 0;
    do {  // until no write came during the delay
      writes = m_writes;
      timer.expires_after(delay);
      auto [error] = co_await timer.async_wait(kTuple);
      if (error) co_return;
    } while (writes != m_writes);
    changed();
  }
  m_settling = false;
}

void JournalWatch::changed() {
  ++m_generation;
  for (asio::steady_timer* timer : m_waiting) timer->cancel();
}

asio::awaitable<void> JournalWatch::wait(std::uint64_t seen, std::chrono::steady_clock::time_point until) {
  if (seen != m_generation) co_return;
  asio::steady_timer timer(co_await asio::this_coro::executor, until);
  m_waiting.insert(&timer);
  auto [error] = co_await timer.async_wait(kTuple);
  (void)error;  // cancelled: a change; otherwise the time is up
  m_waiting.erase(&timer);
}

}  // namespace tpslurm::api
