#include "support/run_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <stdexcept>

namespace tpslurm::testing {

EnvironmentMap minimal_environment() {
  EnvironmentMap environment;
  for (const char* name : {"PATH", "HOME", "TMPDIR", "LANG"}) {
    if (const char* value = std::getenv(name)) environment[name] = value;
  }
  return environment;
}

ExecArguments::ExecArguments(const std::vector<std::string>& argv, const EnvironmentMap& environment) : args(argv) {
  for (const auto& [key, value] : environment) env.push_back(key + "=" + value);
  for (auto& entry : env) env_pointers.push_back(entry.data());
  env_pointers.push_back(nullptr);
  for (auto& arg : args) arg_pointers.push_back(arg.data());
  arg_pointers.push_back(nullptr);
}

ProcessResult run_process(const std::vector<std::string>& argv, const EnvironmentMap& environment,
                          const std::string& stdin_text, std::chrono::seconds time_limit) {
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    throw std::runtime_error("pipe failed");
  }
  ExecArguments exec(argv, environment);

  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    ::execvpe(exec.arg_pointers[0], exec.arg_pointers.data(), exec.env_pointers.data());
    _exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  // Feed stdin without blocking on a child that does not read it.
  ::signal(SIGPIPE, SIG_IGN);
  std::size_t written = 0;
  ::fcntl(in[1], F_SETFL, O_NONBLOCK);
  ProcessResult result;
  const auto deadline = std::chrono::steady_clock::now() + time_limit;
  bool out_open = true, err_open = true, in_open = true;
  if (stdin_text.empty()) {
    ::close(in[1]);
    in_open = false;
  }
  while (out_open || err_open) {
    pollfd fds[3] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}, {in_open ? in[1] : -1, POLLOUT, 0}};
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      ::kill(pid, SIGKILL);
      break;
    }
    if (::poll(fds, 3, static_cast<int>(left.count())) < 0 && errno != EINTR) break;
    char buffer[65536];
    for (int i = 0; i < 2; ++i) {
      if (fds[i].revents & (POLLIN | POLLHUP)) {
        const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
        if (n > 0) {
          (i == 0 ? result.out : result.err).append(buffer, static_cast<std::size_t>(n));
        } else {
          (i == 0 ? out_open : err_open) = false;
          fds[i].fd = -1;
        }
      }
    }
    if (in_open && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
      const ssize_t n = ::write(in[1], stdin_text.data() + written, stdin_text.size() - written);
      if (n > 0) written += static_cast<std::size_t>(n);
      if (n < 0 || written == stdin_text.size()) {
        ::close(in[1]);
        in_open = false;
      }
    }
  }
  if (in_open) ::close(in[1]);
  ::close(out[0]);
  ::close(err[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace tpslurm::testing
