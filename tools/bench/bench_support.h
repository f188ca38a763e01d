// bench_support: what the benchmarks against tools/slurmrestd-sim share — starting the
// simulator and talking to its control API, a transport that counts what a client sends and
// receives, a placeholder token for a simulator run with --no-auth, CPU-time readers and a
// meter built on them, and die().
//
// Contract:
//   - die() prints "<program>: <message>" on stderr (the program is the executable's name),
//     stops every simulator still running and exits with status 1; every helper here that
//     cannot go on calls it, none returns an error.
//   - Simulator owns the child process and the read end of its stdout; its destructor sends
//     SIGTERM and waits. Simulator::call() dies on anything but a 2xx answer.
//   - CountingTransport forwards to a transport it does not own; its counters are atomic, so
//     it may be shared by clients on several threads.
//   - CPU times come from /proc (other processes: 10 ms ticks) and clock_gettime (this one).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include "slurm/curl_transport.h"
#include "slurm/jwt_source.h"
#include "slurm/slurm_client.h"
#include "slurm/transport.h"

namespace tpslurm::bench {

using Steady = std::chrono::steady_clock;

[[noreturn]] void die(const std::string& message);

// CPU seconds of this process, and utime + stime of another one (/proc/PID/stat).
double cpu_seconds_self();
double cpu_seconds_of(pid_t pid);

// This process's resident set now (/proc/self/statm) and its peak (VmHWM) since the last
// reset_peak(), which sets the peak back to the resident set now (/proc/self/clear_refs).
double resident_bytes();
double peak_resident_bytes();
void reset_peak();

// Counts what goes through a client's transport.
class CountingTransport final : public slurm::Transport {
 public:
  explicit CountingTransport(slurm::Transport& inner) : m_inner(inner) {}
  slurm::HttpExchange perform(const slurm::HttpRequest& request) override;
  std::string endpoint() const override { return m_inner.endpoint(); }

  std::atomic<long long> calls = 0;
  std::atomic<long long> bytes_sent = 0;      // request targets + bodies
  std::atomic<long long> bytes_received = 0;  // response bodies

 private:
  slurm::Transport& m_inner;
};

class AnyToken final : public slurm::TokenSource {
 public:
  Result<slurm::Credentials> credentials() override;
  std::string describe() const override;
};

struct Simulator {
  pid_t pid = -1;
  int out = -1;
  std::unique_ptr<slurm::CurlTransport> control;
  std::string url;  // the REST API: http://127.0.0.1:PORT

  Simulator() = default;
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;
  ~Simulator();

  // A control API call (/sim/...); returns the answer's body.
  std::string call(slurm::HttpMethod method, const std::string& path, const std::string& body = "{}");
};

// <dir of this executable>/../slurmrestd-sim/slurmrestd-sim, as the build tree lays it out.
std::string default_simulator_path();

// Starts `binary` on loopback ports with --no-auth --manual-clock --timing manual and
// `--release release`, and reads the "listening on" and "control on" lines.
void start_simulator(Simulator& sim, const std::string& binary, const std::string& release);

// The first number after "key": in a small JSON answer of the control API.
long long number_after(const std::string& body, const std::string& key);

std::string human_bytes(double bytes);

// A clean-up cancel at a bench's end did its job: Slurm took it, or no longer knows the job
// (ended and already purged by slurmctld: not_found).
bool cancelled_or_gone(const slurm::CancelResult& result);

// SQLite's count of committed write transactions of the journal at `journal_path` (open in WAL
// mode by someone): iChange, the third u32 (native byte order) of the wal-index header at the
// start of <journal>-shm, which moves once per commit of any connection. Dies when unreadable.
long long journal_commits(const std::string& journal_path);

// "1000,10000" -> {1000, 10000}, sorted; "" -> none. Dies naming `flag` when an item is not a
// number of at least `least`.
std::vector<long long> parse_sizes(const std::string& flag, const std::string& text, long long least = 1);

struct Cost {
  double calls = 0;
  double bytes_sent = 0;
  double bytes_received = 0;
  double client_cpu_ms = 0;
  double sim_cpu_ms = 0;
  double wall_ms = 0;
};

// What a transport and the simulator spent between construction and stop().
class Meter {
 public:
  Meter(CountingTransport& transport, pid_t sim);
  Cost stop() const;

 private:
  CountingTransport& m_transport;
  pid_t m_sim;
  long long m_calls, m_sent, m_received;
  double m_cpu, m_sim_cpu;
  Steady::time_point m_start;
};

}  // namespace tpslurm::bench
