// Process: the programs the soak runs (the simulator, `serve`, `submit`), started with
// posix_spawn, an explicit environment (nothing inherited), stdin from /dev/null and stdout and
// stderr appended to a log file, so that no secret can reach the soak's own output. The soak
// owns every pid it starts and ends each one by that pid only. Not thread-safe per object;
// run() may be called from several threads at once.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tpslurm::soak {

using Environment = std::map<std::string, std::string>;

class Process {
 public:
  // The started child, or nothing when posix_spawn failed (`error` says why).
  static std::optional<Process> start(const std::vector<std::string>& argv, const Environment& env,
                                      const std::string& log_file, std::string& error);
  Process(Process&& other) noexcept : m_pid(other.m_pid), m_exit(other.m_exit) { other.m_pid = -1; }
  Process& operator=(Process&& other) noexcept;
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  // Kills (SIGKILL) and reaps a child still running.
  ~Process();

  pid_t pid() const { return m_pid; }
  bool running();
  // Sends `signal` and waits for the exit; the exit code, 128 + signal when killed.
  int signal_and_wait(int signal);
  // Waits for the exit; the exit code as above (also when running() saw it exit).
  int wait();
  // Sends `signal` and waits at most `grace` for the exit; past it, SIGKILL and reap.
  struct Stopped {
    int exit_code = -1;    // as above; 128 + 9 when the SIGKILL ended it
    double seconds = 0;    // from the signal to the exit (or to the SIGKILL)
    bool in_time = false;  // it exited within `grace`
  };
  Stopped stop_within(int signal, std::chrono::milliseconds grace);

 private:
  explicit Process(pid_t pid) : m_pid(pid) {}
  pid_t m_pid = -1;
  int m_exit = -1;  // the exit code, once reaped
};

// Runs argv to its end; its exit code (127 when it could not start).
int run(const std::vector<std::string>& argv, const Environment& env, const std::string& log_file);

// The resident set of `pid` in KiB (VmRSS in /proc/PID/status); 0 when unknown.
long resident_kib(pid_t pid);

}  // namespace tpslurm::soak
