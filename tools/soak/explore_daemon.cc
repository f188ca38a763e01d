#include "explore_daemon.h"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <thread>

namespace tpslurm::soak {
namespace {

// A serve that has not said READY=1 by then is stopped anyway (its start is stuck, or it never
// reached sd_notify): the stop is judged as any other.
constexpr auto kReadyWithin = std::chrono::seconds(30);

int bound_datagram_socket(const std::string& path) {
  sockaddr_un address{};
  if (path.size() >= sizeof address.sun_path) return -1;
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  ::unlink(path.c_str());
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// The datagrams waiting: whether one of them says READY=1.
bool drain_says_ready(int fd) {
  bool ready = false;
  char buffer[4096];
  ssize_t n = 0;
  while ((n = ::recv(fd, buffer, sizeof buffer - 1, 0)) > 0) {
    buffer[n] = '\0';
    for (const char* line = buffer; line != nullptr && *line != '\0';) {
      if (std::strncmp(line, "READY=1", 7) == 0 && (line[7] == '\n' || line[7] == '\0')) ready = true;
      line = std::strchr(line, '\n');
      if (line != nullptr) ++line;
    }
  }
  return ready;
}

}  // namespace

DaemonControl::DaemonControl(const Deployment& deployment, double grace_s, std::string notify_socket)
    : m_deployment(deployment),
      m_grace_s(grace_s),
      m_notify_path(std::move(notify_socket)),
      m_notify_fd(bound_datagram_socket(m_notify_path)) {}

DaemonControl::~DaemonControl() {
  (void)stop("the end of the explorer");
  if (m_notify_fd >= 0) {
    ::close(m_notify_fd);
    ::unlink(m_notify_path.c_str());
  }
}

void DaemonControl::wait_ready() {
  const auto deadline = Steady::now() + kReadyWithin;
  while (!m_ready && m_notify_fd >= 0 && Steady::now() < deadline && m_process && m_process->running()) {
    pollfd waiting{m_notify_fd, POLLIN, 0};
    ::poll(&waiting, 1, 100);
    if (drain_says_ready(m_notify_fd)) m_ready = true;
  }
  if (!m_ready) ++m_figures.unready_stops;
}

bool DaemonControl::start() {
  // What an earlier serve said is not this one's.
  if (m_notify_fd >= 0) (void)drain_says_ready(m_notify_fd);
  m_ready = false;
  std::string error;
  m_process = m_deployment.serve(error);
  if (!m_process) {
    m_findings.push_back("cannot start serve: " + error);
    return false;
  }
  m_started_at = Steady::now();
  ++m_figures.starts;
  return true;
}

void DaemonControl::kill() {
  if (!running()) return;
  m_process->signal_and_wait(SIGKILL);
  m_process.reset();
  ++m_figures.kills;
}

bool DaemonControl::stop(const std::string& why) {
  if (!running()) return true;
  wait_ready();
  const auto grace = std::chrono::milliseconds(static_cast<long>(m_grace_s * 1000));
  const Process::Stopped stopped = m_process->stop_within(SIGTERM, grace);
  m_process.reset();
  ++m_figures.stops;
  m_figures.worst_stop_s = std::max(m_figures.worst_stop_s, stopped.seconds);
  if (!stopped.in_time) {
    ++m_figures.slow_stops;
    m_findings.push_back("slow SIGTERM: serve did not exit within " + fixed(m_grace_s, 0) + " s (" + why +
                         "); SIGKILLed");
    return false;
  }
  if (stopped.exit_code != 0) {
    ++m_figures.failed_stops;
    m_findings.push_back("serve exited " + std::to_string(stopped.exit_code) + " on SIGTERM (" + why + ")");
  }
  return true;
}

void DaemonControl::watch() {
  if (!m_process || m_process->running()) return;
  m_process.reset();
  ++m_figures.unexpected_exits;
  m_findings.push_back("serve exited on its own; see deployment/serve.log");
  start();
}

bool DaemonControl::refuses(double bound_s, std::string& finding) {
  std::string error;
  auto process = m_deployment.serve(error);
  if (!process) {
    finding = "cannot start serve: " + error;
    return false;
  }
  const auto deadline = Steady::now() + std::chrono::milliseconds(static_cast<long>(bound_s * 1000));
  while (Steady::now() < deadline && process->running()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (process->running()) {
    process->signal_and_wait(SIGTERM);
    finding = "serve ran under another deployment instead of refusing";
    return false;
  }
  const int code = process->wait();
  if (code == 0) {
    finding = "serve exited 0 under another deployment instead of refusing";
    return false;
  }
  return true;
}

}  // namespace tpslurm::soak
