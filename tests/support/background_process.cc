#include "support/background_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace tpslurm::testing {

std::unique_ptr<BackgroundProcess> BackgroundProcess::start(const std::vector<std::string>& argv,
                                                            const EnvironmentMap& environment,
                                                            const std::string& stderr_file, std::string& error) {
  ExecArguments exec(argv, environment);
  const pid_t pid = ::fork();
  if (pid < 0) {
    error = "fork() failed";
    return nullptr;
  }
  if (pid == 0) {
    const int err = ::open(stderr_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (err >= 0) ::dup2(err, STDERR_FILENO);
    const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
      ::dup2(null, STDIN_FILENO);
      ::dup2(null, STDOUT_FILENO);
    }
    ::execve(exec.arg_pointers[0], exec.arg_pointers.data(), exec.env_pointers.data());
    ::_exit(127);
  }
  return std::unique_ptr<BackgroundProcess>(new BackgroundProcess(pid));
}

BackgroundProcess::~BackgroundProcess() {
  if (m_pid <= 0) return;
  ::kill(m_pid, SIGKILL);
  ::waitpid(m_pid, nullptr, 0);
}

void BackgroundProcess::signal(int number) const {
  if (m_pid > 0) ::kill(m_pid, number);
}

int BackgroundProcess::wait() {
  if (m_pid <= 0) return -1;
  int status = 0;
  ::waitpid(m_pid, &status, 0);
  m_pid = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace tpslurm::testing
