#include "bench_support.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

namespace tpslurm::bench {

using namespace tpslurm::slurm;

namespace {

// The simulators running now: die() exits without destructors, and a simulator left behind
// would hold the caller's stdout open.
std::vector<pid_t>& running_simulators() {
  static std::vector<pid_t> pids;
  return pids;
}

}  // namespace

void die(const std::string& message) {
  std::fprintf(stderr, "%s: %s\n", program_invocation_short_name, message.c_str());
  for (const pid_t pid : running_simulators()) {
    ::kill(pid, SIGTERM);
    ::waitpid(pid, nullptr, 0);
  }
  std::exit(1);
}

double cpu_seconds_self() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

double resident_bytes() {
  std::ifstream in("/proc/self/statm");
  long long size = 0, resident = 0;
  in >> size >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

double peak_resident_bytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::atof(line.c_str() + 6) * 1024;
  }
  return 0;
}

void reset_peak() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
}

// Fields 14 and 15 of /proc/PID/stat, counted after the command name's closing parenthesis
// (the name may hold spaces).
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

HttpExchange CountingTransport::perform(const HttpRequest& request) {
  ++calls;
  bytes_sent += static_cast<long long>(request.target.size() + request.body.size());
  HttpExchange exchange = m_inner.perform(request);
  bytes_received += static_cast<long long>(exchange.response.body_size());
  return exchange;
}

Result<Credentials> AnyToken::credentials() { return Credentials{"root", "bench-token-the-simulator-ignores", {}}; }

std::string AnyToken::describe() const { return "a placeholder token (the simulator runs with --no-auth)"; }

Simulator::~Simulator() {
  if (pid > 0) {
    std::erase(running_simulators(), pid);
    ::kill(pid, SIGTERM);
    int status = 0;
    ::waitpid(pid, &status, 0);
  }
  if (out >= 0) ::close(out);
}

std::string Simulator::call(HttpMethod method, const std::string& path, const std::string& body) {
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

namespace {

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

}  // namespace

std::string default_simulator_path() {
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path() / "slurmrestd-sim" /
          "slurmrestd-sim")
      .string();
}

void start_simulator(Simulator& sim, const std::string& binary, const std::string& release) {
  std::vector<std::string> argv{binary,        "--listen",  "127.0.0.1:0",    "--control-listen",
                                "127.0.0.1:0", "--no-auth", "--manual-clock", "--timing",
                                "manual",      "--release", release};
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
  running_simulators().push_back(pid);
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

bool cancelled_or_gone(const slurm::CancelResult& result) {
  return result.ok() || result.outcome == slurm::Outcome::not_found;
}

long long number_after(const std::string& body, const std::string& key) {
  const auto at = body.find("\"" + key + "\"");
  if (at == std::string::npos) die("no \"" + key + "\" in " + body);
  const auto colon = body.find(':', at);
  return std::atoll(body.c_str() + colon + 1);
}

std::vector<long long> parse_sizes(const std::string& flag, const std::string& text, long long least) {
  std::vector<long long> sizes;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const long long n = std::atoll(item.c_str());
    if (n < least) {
      die(flag + " " + text + ": expected numbers of at least " + std::to_string(least) + ", e.g. 1000,10000");
    }
    sizes.push_back(n);
  }
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

long long journal_commits(const std::string& journal_path) {
  const std::string shm = journal_path + "-shm";
  const int fd = ::open(shm.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) die("cannot open " + shm + " (the journal must be open in WAL mode)");
  std::uint32_t change = 0;
  const ssize_t got = ::pread(fd, &change, sizeof change, 8);
  ::close(fd);
  if (got != static_cast<ssize_t>(sizeof change)) die("cannot read the wal-index header of " + shm);
  return change;
}

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

Meter::Meter(CountingTransport& transport, pid_t sim) : m_transport(transport), m_sim(sim) {
  m_calls = transport.calls;
  m_sent = transport.bytes_sent;
  m_received = transport.bytes_received;
  m_cpu = cpu_seconds_self();
  m_sim_cpu = cpu_seconds_of(sim);
  m_start = Steady::now();
}

Cost Meter::stop() const {
  Cost cost;
  cost.wall_ms = std::chrono::duration<double, std::milli>(Steady::now() - m_start).count();
  cost.client_cpu_ms = (cpu_seconds_self() - m_cpu) * 1000;
  cost.sim_cpu_ms = (cpu_seconds_of(m_sim) - m_sim_cpu) * 1000;
  cost.calls = static_cast<double>(m_transport.calls - m_calls);
  cost.bytes_sent = static_cast<double>(m_transport.bytes_sent - m_sent);
  cost.bytes_received = static_cast<double>(m_transport.bytes_received - m_received);
  return cost;
}

}  // namespace tpslurm::bench
