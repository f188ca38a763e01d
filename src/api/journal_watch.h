// JournalWatch: wakes the API's long polls when the journal changes — a commit by any
// connection of any process (the daemon's, the API's, the CLI's) — without polling: inotify
// on the journal's directory, for writes to its write-ahead log (`<journal>-wal`; every commit
// in WAL mode appends there, and reads never write it). A commit becomes visible only after its
// sync, which makes no file event: so the waiters are woken at the writes and again once they
// have stopped for 50 ms, and once more after a further second (a slow sync); a commit whose
// sync takes longer still is seen at the next change or when the long poll's wait ends. Each
// wake moves a generation count;
// wait() returns as soon as the count differs from the one the caller saw before it read the
// journal (so a commit between that read and the wait is not missed), or at `until`.
// Lives on the API server's io_context; used from its one thread only.
#pragma once

#include <array>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <set>
#include <string>

#include "base/result.h"

namespace tpslurm::api {

class JournalWatch {
 public:
  static Result<std::unique_ptr<JournalWatch>> start(boost::asio::io_context& io, const std::string& journal_path);

  std::uint64_t generation() const { return m_generation; }
  boost::asio::awaitable<void> wait(std::uint64_t seen, std::chrono::steady_clock::time_point until);

 private:
  JournalWatch(boost::asio::io_context& io, int fd, std::string wal_name);
  boost::asio::awaitable<void> read_events();
  void settle_after_write();
  boost::asio::awaitable<void> settle();
  void changed();

  boost::asio::posix::stream_descriptor m_inotify;
  std::string m_wal_name;
  std::uint64_t m_generation = 0;
  std::uint64_t m_writes = 0;  // WAL writes seen
  bool m_settling = false;     // settle() is running
  std::set<boost::asio::steady_timer*> m_waiting;
  alignas(8) std::array<char, 4096> m_buffer{};  // inotify events, read whole
};

}  // namespace tpslurm::api
