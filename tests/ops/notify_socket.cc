#include "notify_socket.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace tpslurm::ops::testing {

NotifySocket::NotifySocket(std::string path) : m_path(std::move(path)) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (m_path.size() >= sizeof address.sun_path) {
    m_error = "socket path too long: " + m_path;
    return;
  }
  std::memcpy(address.sun_path, m_path.c_str(), m_path.size() + 1);
  m_fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (m_fd < 0) {
    m_error = std::string("socket: ") + std::strerror(errno);
    return;
  }
  if (::bind(m_fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    m_error = "bind " + m_path + ": " + std::strerror(errno);
    ::close(m_fd);
    m_fd = -1;
  }
}

NotifySocket::~NotifySocket() {
  if (m_fd < 0) return;
  ::close(m_fd);
  ::unlink(m_path.c_str());
}

std::optional<std::string> NotifySocket::receive(std::chrono::milliseconds limit) {
  if (m_fd < 0) return std::nullopt;
  pollfd waiting{m_fd, POLLIN, 0};
  int ready = 0;
  do {
    ready = ::poll(&waiting, 1, static_cast<int>(limit.count()));
  } while (ready < 0 && errno == EINTR);
  if (ready <= 0) return std::nullopt;
  char buffer[4096];
  const ssize_t got = ::recv(m_fd, buffer, sizeof buffer, 0);
  if (got < 0) return std::nullopt;
  return std::string(buffer, static_cast<std::size_t>(got));
}

}  // namespace tpslurm::ops::testing
