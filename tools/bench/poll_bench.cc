// poll_bench: what one status poll cycle costs with bulk polling, next to the naive
// one-GET-per-job approach measured in the same run, against tools/slurmrestd-sim holding
// 1,000, 10,000 and 100,000 live jobs.
//
//   poll_bench [--sim PATH] [--sizes 1000,10000,100000] [--changed K] [--cycles C]
//              [--naive-cap N] [--naive-seconds S]
//
// A bulk cycle is what the controller does (ARCHITECTURE.md §5): SlurmClient::bulk_state for
// every followed job id (jobs/state, 500 ids per call), then GET job/{id} for the jobs whose
// state changed. Before each cycle the simulator moves K jobs from PENDING to RUNNING, so K
// jobs change per cycle. Goal: calls per cycle <= ceil(N/500) + K.
//
// Per cycle it prints REST calls, bytes (request target+body sent, response bodies received,
// counted by the client), the client's CPU time (this process, JSON decoding included), the
// simulator's CPU time (standing in for slurmrestd's; /proc, 10 ms ticks) and wall time. The
// naive cycle GETs every job one by one; when that would take minutes (more than
// --naive-seconds, default 60, or more than --naive-cap jobs if given) it is measured on the
// jobs it reached and scaled to N, and the output says so. Prints numbers only; asserts nothing.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "slurm/curl_transport.h"
#include "slurm/rest_client.h"

namespace {

using namespace tpslurm;
using namespace tpslurm::slurm;
using Steady = std::chrono::steady_clock;

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "poll_bench: %s\n", message.c_str());
  std::exit(1);
}

double cpu_seconds_self() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

// utime + stime of another process, from /proc/PID/stat (fields 14 and 15).
double cpu_seconds_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::atoll(field.c_str());
    if (i == 15) stime = std::atoll(field.c_str());
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// Counts what goes through the client's transport.
class CountingTransport final : public Transport {
 public:
  explicit CountingTransport(Transport& inner) : m_inner(inner) {}
  HttpExchange perform(const HttpRequest& request) override {
    ++calls;
    bytes_sent += request.target.size() + request.body.size();
    HttpExchange exchange = m_inner.perform(request);
    bytes_received += exchange.response.body.size();
    return exchange;
  }
  std::string endpoint() const override { return m_inner.endpoint(); }

  long long calls = 0;
  long long bytes_sent = 0;
  long long bytes_received = 0;

 private:
  Transport& m_inner;
};

class AnyToken final : public TokenSource {
 public:
  Result<Credentials> credentials() override { return Credentials{"root", "bench-token-the-simulator-ignores", {}}; }
  std::string describe() const override { return "a placeholder token (the simulator runs with --no-auth)"; }
};

struct Simulator {
  pid_t pid = -1;
  int out = -1;
  std::unique_ptr<CurlTransport> control;
  std::string url;

  ~Simulator() {
    if (pid > 0) {
      ::kill(pid, SIGTERM);
      int status = 0;
      ::waitpid(pid, &status, 0);
    }
    if (out >= 0) ::close(out);
  }

  std::string call(HttpMethod method, const std::string& path, const std::string& body = "{}") {
    HttpRequest request;
    request.method = method;
    request.target = path;
    if (method == HttpMethod::post) request.body = body;
    const HttpExchange exchange = control->perform(request);
    if (exchange.delivery != Delivery::answered || exchange.response.status >= 300) {
      die(path + ": " + exchange.detail + " HTTP " + std::to_string(exchange.response.status) + " " +
          exchange.response.body);
    }
    return exchange.response.body;
  }
};

std::string read_line(int fd) {
  std::string line;
  const auto deadline = Steady::now() + std::chrono::seconds(20);
  while (Steady::now() < deadline) {
    pollfd wait{fd, POLLIN, 0};
    if (::poll(&wait, 1, 1000) <= 0) continue;
    char c = 0;
    if (::read(fd, &c, 1) != 1) break;
    if (c == '\n') return line;
    line += c;
  }
  return {};
}

int port_after(const std::string& line, const std::string& prefix) {
  return line.rfind(prefix, 0) == 0 ? std::atoi(line.c_str() + prefix.size()) : 0;
}

// The first number after "key": in a small JSON answer of the control API.
long long number_after(const std::string& body, const std::string& key) {
  const auto at = body.find("\"" + key + "\"");
  if (at == std::string::npos) die("no \"" + key + "\" in " + body);
  const auto colon = body.find(':', at);
  return std::atoll(body.c_str() + colon + 1);
}

void start_simulator(Simulator& sim, const std::string& binary) {
  std::vector<std::string> argv{binary,        "--listen", "127.0.0.1:0", "--control-listen", "127.0.0.1:0",
                                "--no-auth",   "--manual-clock", "--timing", "manual", "--release", "26.05.3"};
  int out[2];
  if (::pipe(out) != 0) die("pipe() failed");
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out[1], 1);
    ::close(out[0]);
    ::close(out[1]);
    std::vector<char*> raw;
    for (auto& arg : argv) raw.push_back(arg.data());
    raw.push_back(nullptr);
    ::execv(raw[0], raw.data());
    ::_exit(127);
  }
  ::close(out[1]);
  sim.pid = pid;
  sim.out = out[0];
  const int port = port_after(read_line(out[0]), "listening on 127.0.0.1:");
  const int control_port = port_after(read_line(out[0]), "control on 127.0.0.1:");
  if (port == 0 || control_port == 0) die(binary + " did not start (run it by hand to see why)");
  sim.url = "http://127.0.0.1:" + std::to_string(port);
  CurlTransportOptions options;
  options.url = "http://127.0.0.1:" + std::to_string(control_port);
  options.total_timeout = std::chrono::minutes(5);
  auto control = CurlTransport::create(options);
  if (!control.ok()) die(control.error().message());
  sim.control = std::move(control).value();
}

struct Cost {
  double calls = 0;
  double bytes_sent = 0;
  double bytes_received = 0;
  double client_cpu_ms = 0;
  double sim_cpu_ms = 0;
  double wall_ms = 0;
  double changed = 0;
};

class Meter {
 public:
  Meter(CountingTransport& transport, pid_t sim) : m_transport(transport), m_sim(sim) {
    m_calls = transport.calls;
    m_sent = transport.bytes_sent;
    m_received = transport.bytes_received;
    m_cpu = cpu_seconds_self();
    m_sim_cpu = cpu_seconds_of(sim);
    m_start = Steady::now();
  }
  Cost stop() const {
    Cost cost;
    cost.wall_ms = std::chrono::duration<double, std::milli>(Steady::now() - m_start).count();
    cost.client_cpu_ms = (cpu_seconds_self() - m_cpu) * 1000;
    cost.sim_cpu_ms = (cpu_seconds_of(m_sim) - m_sim_cpu) * 1000;
    cost.calls = static_cast<double>(m_transport.calls - m_calls);
    cost.bytes_sent = static_cast<double>(m_transport.bytes_sent - m_sent);
    cost.bytes_received = static_cast<double>(m_transport.bytes_received - m_received);
    return cost;
  }

 private:
  CountingTransport& m_transport;
  pid_t m_sim;
  long long m_calls, m_sent, m_received;
  double m_cpu, m_sim_cpu;
  Steady::time_point m_start;
};

std::string human_bytes(double bytes) {
  char text[32];
  if (bytes >= 1e6) {
    std::snprintf(text, sizeof text, "%.1f MB", bytes / 1e6);
  } else if (bytes >= 1e3) {
    std::snprintf(text, sizeof text, "%.1f kB", bytes / 1e3);
  } else {
    std::snprintf(text, sizeof text, "%.0f B", bytes);
  }
  return text;
}

void print_row(long long n, const std::string& approach, const Cost& cost, const std::string& goal,
               const std::string& note) {
  std::printf("%8lld  %-22s %9.0f %8s %10s %11s %10.1f %10.1f %10.1f  %s\n", n, approach.c_str(), cost.calls,
              goal.c_str(), human_bytes(cost.bytes_sent).c_str(), human_bytes(cost.bytes_received).c_str(),
              cost.client_cpu_ms, cost.sim_cpu_ms, cost.wall_ms, note.c_str());
}

std::vector<long long> parse_sizes(const std::string& text) {
  std::vector<long long> sizes;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const long long n = std::atoll(item.c_str());
    if (n <= 0) die("--sizes " + text + ": expected positive numbers, e.g. 1000,10000,100000");
    sizes.push_back(n);
  }
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

}  // namespace

int main(int argc, char** argv) {
  std::string sim_binary =
      (std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path() / "slurmrestd-sim" / "slurmrestd-sim")
          .string();
  std::string sizes_text = "1000,10000,100000";
  int changed = 10;
  int cycles = 5;
  long long naive_cap = 0;  // 0: no cap by count, only by time
  double naive_seconds = 60;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--sim") {
      sim_binary = value();
    } else if (arg == "--sizes") {
      sizes_text = value();
    } else if (arg == "--changed") {
      changed = std::atoi(value().c_str());
    } else if (arg == "--cycles") {
      cycles = std::max(1, std::atoi(value().c_str()));
    } else if (arg == "--naive-cap") {
      naive_cap = std::max(0LL, std::atoll(value().c_str()));
    } else if (arg == "--naive-seconds") {
      naive_seconds = std::atof(value().c_str());
    } else {
      die("unknown argument " + arg + " (see the comment at the top of tools/bench/poll_bench.cc)");
    }
  }
  if (!std::filesystem::exists(sim_binary)) {
    die(sim_binary + " does not exist; build it (cmake --build <build dir> --target slurmrestd-sim) or pass --sim PATH");
  }
  const std::vector<long long> sizes = parse_sizes(sizes_text);

  Simulator sim;
  start_simulator(sim, sim_binary);
  CurlTransportOptions options;
  options.url = sim.url;
  options.total_timeout = std::chrono::minutes(5);
  auto curl = CurlTransport::create(options);
  if (!curl.ok()) die(curl.error().message());
  CountingTransport transport(**curl);
  AnyToken tokens;
  auto made = RestClient::create(transport, tokens, "v0.0.45");
  if (!made.ok()) die(made.error().message());
  RestClient& client = **made;

  std::printf("poll_bench: slurmrestd-sim 26.05.3 (v0.0.45) on %s; %d changed jobs per cycle; bulk: mean of %d cycles\n",
              sim.url.c_str(), changed, cycles);
  std::printf("  bytes sent = request targets + bodies, received = response bodies (client side); CPU in ms\n");
  std::printf("  (client: this process; sim: the simulator standing in for slurmrestd, 10 ms ticks)\n");
  std::printf("  goal: calls per cycle <= ceil(N/500) + changed jobs\n\n");
  std::printf("%8s  %-22s %9s %8s %10s %11s %10s %10s %10s\n", "jobs", "approach", "calls", "goal", "sent",
              "received", "client CPU", "sim CPU", "wall ms");

  std::vector<std::uint32_t> ids;
  std::map<std::uint32_t, model::SlurmState> known;
  for (const long long n : sizes) {
    // Top the simulator up to n live (pending) jobs.
    while (static_cast<long long>(ids.size()) < n) {
      const long long add = std::min<long long>(n - static_cast<long long>(ids.size()), 100000);
      const std::string answer = sim.call(HttpMethod::post, "/sim/jobs/bulk",
                                          "{\"count\": " + std::to_string(add) + ", \"state\": \"PENDING\"}");
      const auto first = static_cast<std::uint32_t>(number_after(answer, "first_job_id"));
      const auto last = static_cast<std::uint32_t>(number_after(answer, "last_job_id"));
      for (std::uint32_t id = first; id <= last; ++id) ids.push_back(id);
    }
    // What the controller knew before the measured cycles.
    const BulkStateResult initial = client.bulk_state(ids);
    if (!initial.ok()) die("bulk_state: " + initial.message);
    for (const auto& entry : initial.states) known[entry.job_id] = entry.state;

    Cost total;
    for (int cycle = 0; cycle < cycles; ++cycle) {
      sim.call(HttpMethod::post, "/sim/jobs/advance",
               "{\"count\": " + std::to_string(changed) + ", \"from\": \"PENDING\", \"to\": \"RUNNING\"}");
      Meter meter(transport, sim.pid);
      const BulkStateResult polled = client.bulk_state(ids);
      if (!polled.ok()) die("bulk_state: " + polled.message);
      int fetched = 0;
      for (const auto& entry : polled.states) {
        auto& before = known[entry.job_id];
        if (before == entry.state) continue;
        before = entry.state;
        const JobsResult full = client.get_job({entry.job_id, ""});
        if (!full.ok()) die("get_job: " + full.message);
        ++fetched;
      }
      Cost cost = meter.stop();
      cost.changed = fetched;
      total.calls += cost.calls;
      total.bytes_sent += cost.bytes_sent;
      total.bytes_received += cost.bytes_received;
      total.client_cpu_ms += cost.client_cpu_ms;
      total.sim_cpu_ms += cost.sim_cpu_ms;
      total.wall_ms += cost.wall_ms;
      total.changed += cost.changed;
    }
    Cost bulk = total;
    for (double* field : {&bulk.calls, &bulk.bytes_sent, &bulk.bytes_received, &bulk.client_cpu_ms, &bulk.sim_cpu_ms,
                          &bulk.wall_ms, &bulk.changed}) {
      *field /= cycles;
    }
    const long long goal = (n + 499) / 500 + static_cast<long long>(std::lround(bulk.changed));
    print_row(n, "bulk + changed GETs", bulk, std::to_string(goal),
              std::string(bulk.calls <= static_cast<double>(goal) ? "within goal" : "OVER GOAL") + ", " +
                  std::to_string(std::lround(bulk.changed)) + " changed");

    // The naive cycle: one GET per job, capped when it would take minutes.
    const long long limit = naive_cap > 0 ? std::min<long long>(n, naive_cap) : n;
    Meter meter(transport, sim.pid);
    long long asked = 0;
    const auto deadline = Steady::now() + std::chrono::duration<double>(naive_seconds);
    for (; asked < limit && Steady::now() < deadline; ++asked) {
      const JobsResult one = client.get_job({ids[static_cast<std::size_t>(asked)], ""});
      if (!one.ok()) die("get_job: " + one.message);
    }
    Cost naive = meter.stop();
    std::string note = "measured on all jobs";
    if (asked < n) {
      const double scale = static_cast<double>(n) / static_cast<double>(asked);
      for (double* field : {&naive.calls, &naive.bytes_sent, &naive.bytes_received, &naive.client_cpu_ms,
                            &naive.sim_cpu_ms, &naive.wall_ms}) {
        *field *= scale;
      }
      char text[160];
      std::snprintf(text, sizeof text, "CAPPED: measured on %lld of %lld jobs, scaled x%.1f (a full run would take ~%.0f s)",
                    asked, n, scale, naive.wall_ms / 1000);
      note = text;
    }
    print_row(n, "naive GET per job", naive, "-", note);
    const std::string stats = sim.call(HttpMethod::get, "/sim/stats");
    std::printf("%8s  %-22s simulator holds %lld jobs in slurmctld\n", "", "",
                number_after(stats, "jobs_in_controller"));
  }
  return 0;
}
