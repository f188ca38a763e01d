// ChildProcess: a program a test keeps running beside it (a simulator, a proxy). start()
// forks and execs argv[0] with `argv`; the child's stdout is a pipe the test reads line by
// line with a deadline, its stderr goes to `stderr_file` when one is named and is inherited
// otherwise. The pipe stays open until the object goes, because a write to a closed pipe
// would kill the child (SIGPIPE). stop() sends SIGTERM and waits; the destructor stops a child
// that is still running. Not thread-safe.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace tpslurm::testing {

class ChildProcess {
 public:
  // The running child, or null with `error` set ("pipe() failed", "fork() failed"). A program
  // that cannot be executed still starts: the child exits 127 and its stdout ends.
  static std::unique_ptr<ChildProcess> start(const std::vector<std::string>& argv, const std::string& stderr_file,
                                             std::string& error);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // One line of stdout without its newline, waiting at most until `deadline`; empty on
  // timeout or end of file.
  std::string read_line(std::chrono::steady_clock::time_point deadline);
  // What stdout holds now beyond the lines already read, without waiting for more.
  std::string read_available() const;
  // Sends SIGTERM and waits; the exit code, 128 + signal when it was killed, -1 when it was
  // already stopped.
  int stop();

 private:
  ChildProcess(pid_t pid, int out) : m_pid(pid), m_out(out) {}

  pid_t m_pid = -1;
  int m_out = -1;
};

}  // namespace tpslurm::testing
