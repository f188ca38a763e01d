// NotifySocket: the receiving end of systemd's notification protocol for a test — an
// AF_UNIX datagram socket bound at a path, which a child gets as NOTIFY_SOCKET. Each
// datagram is one notification ("READY=1", "STOPPING=1", several lines possibly). Nothing
// here speaks for the product: the daemon sends with libsystemd's sd_notify(). Not
// thread-safe; the socket file is removed with the object.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace tpslurm::ops::testing {

class NotifySocket {
 public:
  // Binds at `path` (which must not exist); bound() says whether that worked, error() why not.
  explicit NotifySocket(std::string path);
  ~NotifySocket();
  NotifySocket(const NotifySocket&) = delete;
  NotifySocket& operator=(const NotifySocket&) = delete;

  bool bound() const { return m_fd >= 0; }
  const std::string& error() const { return m_error; }
  const std::string& path() const { return m_path; }

  // The next datagram, or nothing when none arrives within `limit` (zero: only one already
  // queued).
  std::optional<std::string> receive(std::chrono::milliseconds limit);

 private:
  std::string m_path;
  std::string m_error;
  int m_fd = -1;
};

}  // namespace tpslurm::ops::testing
