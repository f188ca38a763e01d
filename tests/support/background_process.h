// BackgroundProcess: a program a test runs beside it with a complete environment (nothing
// inherited) and its stderr in a file — the daemon under test, typically. signal() sends a
// signal (SIGKILL to play a crash); wait() reaps it. The destructor kills (SIGKILL) and reaps
// a process still running. Not thread-safe.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "support/run_process.h"

namespace tpslurm::testing {

class BackgroundProcess {
 public:
  // Null with `error` set when fork() fails; a program that cannot be executed exits 127.
  static std::unique_ptr<BackgroundProcess> start(const std::vector<std::string>& argv,
                                                  const EnvironmentMap& environment, const std::string& stderr_file,
                                                  std::string& error);
  ~BackgroundProcess();
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;

  pid_t pid() const { return m_pid; }
  void signal(int number) const;
  // Waits for the exit: its code, 128 + signal when a signal ended it, -1 when already reaped.
  int wait();

 private:
  explicit BackgroundProcess(pid_t pid) : m_pid(pid) {}
  pid_t m_pid = -1;
};

}  // namespace tpslurm::testing
