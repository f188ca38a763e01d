#include "process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <fstream>
#include <thread>

namespace tpslurm::soak {
namespace {

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

std::optional<Process> Process::start(const std::vector<std::string>& argv, const Environment& env,
                                      const std::string& log_file, std::string& error) {
  std::vector<std::string> env_strings;
  for (const auto& [key, value] : env) env_strings.push_back(key + "=" + value);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    error = argv[0] + ": posix_spawn failed (error " + std::to_string(rc) + ")";
    return std::nullopt;
  }
  return Process(pid);
}

Process& Process::operator=(Process&& other) noexcept {
  if (this != &other) {
    if (m_pid > 0) signal_and_wait(SIGKILL);
    m_pid = other.m_pid;
    m_exit = other.m_exit;
    other.m_pid = -1;
  }
  return *this;
}

Process::~Process() {
  if (m_pid > 0) signal_and_wait(SIGKILL);
}

bool Process::running() {
  if (m_pid <= 0) return false;
  int status = 0;
  if (waitpid(m_pid, &status, WNOHANG) == m_pid) {
    m_pid = -1;
    m_exit = exit_code_of(status);
    return false;
  }
  return true;
}

int Process::signal_and_wait(int signal) {
  if (m_pid <= 0) return -1;
  kill(m_pid, signal);
  return wait();
}

int Process::wait() {
  if (m_pid <= 0) return m_exit;
  int status = 0;
  while (waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
  }
  m_pid = -1;
  m_exit = exit_code_of(status);
  return m_exit;
}

Process::Stopped Process::stop_within(int signal, std::chrono::milliseconds grace) {
  Stopped stopped;
  if (m_pid <= 0) return stopped;
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + grace;
  kill(m_pid, signal);
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    const pid_t done = waitpid(m_pid, &status, WNOHANG);
    if (done == m_pid) {
      m_pid = -1;
      stopped.exit_code = m_exit = exit_code_of(status);
      stopped.in_time = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  stopped.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!stopped.in_time) stopped.exit_code = signal_and_wait(SIGKILL);
  return stopped;
}

int run(const std::vector<std::string>& argv, const Environment& env, const std::string& log_file) {
  std::string error;
  auto process = Process::start(argv, env, log_file, error);
  if (!process) return 127;
  return process->wait();
}

long resident_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  while (in >> key) {
    if (key == "VmRSS:") {
      long kib = 0;
      in >> kib;
      return kib;
    }
    std::string rest;
    std::getline(in, rest);
  }
  return 0;
}

}  // namespace tpslurm::soak
