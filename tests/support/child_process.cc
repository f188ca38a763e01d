#include "support/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace tpslurm::testing {

std::unique_ptr<ChildProcess> ChildProcess::start(const std::vector<std::string>& argv, const std::string& stderr_file,
                                                  std::string& error) {
  std::vector<std::string> args = argv;
  int out[2];
  if (::pipe(out) != 0) {
    error = "pipe() failed";
    return nullptr;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(out[0]);
    ::close(out[1]);
    error = "fork() failed";
    return nullptr;
  }
  if (pid == 0) {
    if (!stderr_file.empty()) {
      const int err = ::open(stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (err >= 0) ::dup2(err, 2);
    }
    ::dup2(out[1], 1);
    ::close(out[0]);
    ::close(out[1]);
    std::vector<char*> raw;
    for (auto& arg : args) raw.push_back(arg.data());
    raw.push_back(nullptr);
    ::execv(raw[0], raw.data());
    ::_exit(127);
  }
  ::close(out[1]);
  return std::unique_ptr<ChildProcess>(new ChildProcess(pid, out[0]));
}

ChildProcess::~ChildProcess() {
  stop();
  ::close(m_out);
}

std::string ChildProcess::read_line(std::chrono::steady_clock::time_point deadline) {
  std::string line;
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return {};
    pollfd wait{m_out, POLLIN, 0};
    if (::poll(&wait, 1, static_cast<int>(left.count())) <= 0) return {};
    // One byte at a time, so nothing after the newline is taken from the pipe.
    char c = 0;
    if (::read(m_out, &c, 1) != 1) return {};
    if (c == '\n') return line;
    line += c;
  }
}

std::string ChildProcess::read_available() const {
  std::string text;
  pollfd ready{m_out, POLLIN, 0};
  char buffer[4096];
  while (::poll(&ready, 1, 0) > 0 && (ready.revents & POLLIN) != 0) {
    const ssize_t n = ::read(m_out, buffer, sizeof buffer);
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return text;
}

int ChildProcess::stop() {
  if (m_pid <= 0) return -1;
  ::kill(m_pid, SIGTERM);
  int status = 0;
  ::waitpid(m_pid, &status, 0);
  m_pid = -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

}  // namespace tpslurm::testing
