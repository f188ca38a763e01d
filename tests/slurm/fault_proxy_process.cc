#include "fault_proxy_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

namespace tpslurm::slurm::testing {
namespace {

constexpr auto kStartLimit = std::chrono::seconds(20);

// One line from `fd`, waiting at most until `deadline`; empty on timeout or end of file.
std::string read_line(int fd, std::chrono::steady_clock::time_point deadline) {
  std::string line;
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return {};
    pollfd wait{fd, POLLIN, 0};
    if (::poll(&wait, 1, static_cast<int>(left.count())) <= 0) return {};
    char c = 0;
    if (::read(fd, &c, 1) != 1) return {};
    if (c == '\n') return line;
    line += c;
  }
}

int port_after(const std::string& line, const std::string& prefix) {
  if (line.rfind(prefix, 0) != 0) return 0;
  return std::atoi(line.c_str() + prefix.size());
}

}  // namespace

Result<std::unique_ptr<FaultProxyProcess>> FaultProxyProcess::start(const std::string& upstream_url,
                                                                    const std::vector<std::string>& args) {
  std::unique_ptr<FaultProxyProcess> proxy(new FaultProxyProcess());
  proxy->m_dir = std::make_unique<tpslurm::testing::TempDir>();
  const std::string err_file = proxy->m_dir->file("stderr");
  std::vector<std::string> argv{FAULT_PROXY_BINARY, "--listen",   "127.0.0.1:0", "--control-listen",
                                "127.0.0.1:0",      "--upstream", upstream_url};
  argv.insert(argv.end(), args.begin(), args.end());
  int out[2];
  if (::pipe(out) != 0) return permanent("tp-fault-proxy: pipe() failed");
  const pid_t pid = ::fork();
  if (pid < 0) return permanent("tp-fault-proxy: fork() failed");
  if (pid == 0) {
    const int err = ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(out[1], 1);
    if (err >= 0) ::dup2(err, 2);
    ::close(out[0]);
    ::close(out[1]);
    std::vector<char*> raw;
    for (auto& arg : argv) raw.push_back(arg.data());
    raw.push_back(nullptr);
    ::execv(raw[0], raw.data());
    ::_exit(127);
  }
  ::close(out[1]);
  proxy->m_pid = pid;
  const auto deadline = std::chrono::steady_clock::now() + kStartLimit;
  const std::string listening = read_line(out[0], deadline);
  const std::string control = read_line(out[0], deadline);
  proxy->m_stdout = listening + "\n" + control + "\n";
  proxy->m_port = port_after(listening, "listening on 127.0.0.1:");
  proxy->m_control_port = port_after(control, "control on 127.0.0.1:");
  // Kept open until the end: a write to a closed pipe would kill the proxy (SIGPIPE).
  proxy->m_out = out[0];
  if (proxy->m_port == 0 || proxy->m_control_port == 0) {
    return permanent("tp-fault-proxy (" + std::string(FAULT_PROXY_BINARY) + ") did not report its ports within " +
                     std::to_string(kStartLimit.count()) + " s; it said: " + proxy->output());
  }
  CurlTransportOptions options;
  options.url = proxy->control_url();
  options.connect_timeout = std::chrono::milliseconds(2000);
  options.total_timeout = std::chrono::milliseconds(10000);
  auto transport = CurlTransport::create(options);
  if (!transport.ok()) return transport.error();
  proxy->m_control = std::move(transport).value();
  auto stats = proxy->control(HttpMethod::get, "/proxy/stats");
  if (!stats.ok()) return stats.error();
  return proxy;
}

FaultProxyProcess::~FaultProxyProcess() {
  stop();
  if (m_out >= 0) ::close(m_out);
}

int FaultProxyProcess::stop() {
  if (m_pid <= 0) return -1;
  ::kill(m_pid, SIGTERM);
  int status = 0;
  ::waitpid(m_pid, &status, 0);
  m_pid = -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

std::string FaultProxyProcess::output() const {
  std::string text = m_stdout;
  if (m_out >= 0) {
    // Whatever it printed after the two lines start() read, without waiting for more.
    pollfd ready{m_out, POLLIN, 0};
    char buffer[4096];
    while (::poll(&ready, 1, 0) > 0 && (ready.revents & POLLIN) != 0) {
      const ssize_t n = ::read(m_out, buffer, sizeof buffer);
      if (n <= 0) break;
      text.append(buffer, static_cast<std::size_t>(n));
    }
  }
  return text + tpslurm::testing::read_test_file(m_dir->file("stderr"));
}

Result<boost::json::value> FaultProxyProcess::control(HttpMethod method, const std::string& path,
                                                      const std::string& body) {
  HttpRequest request;
  request.method = method;
  request.target = path;
  request.body = body;
  const HttpExchange exchange = m_control->perform(request);
  const std::string label = std::string(to_string(method)) + " " + path;
  if (exchange.delivery != Delivery::answered) return permanent(label + ": " + exchange.detail);
  if (exchange.response.status >= 300) {
    return permanent(label + ": HTTP " + std::to_string(exchange.response.status) + " " + exchange.response.body);
  }
  boost::system::error_code ec;
  auto parsed = boost::json::parse(exchange.response.body, ec);
  if (ec) return corrupt(label + ": not JSON: " + exchange.response.body);
  return parsed;
}

Result<std::int64_t> FaultProxyProcess::add_fault(const std::string& rule_json) {
  auto answer = control(HttpMethod::post, "/proxy/faults", rule_json);
  if (!answer.ok()) return answer.error();
  return answer->at("id").to_number<std::int64_t>();
}

std::int64_t FaultProxyProcess::stat(const std::string& name) {
  auto answer = control(HttpMethod::get, "/proxy/stats");
  if (!answer.ok() || !answer->is_object()) return -1;
  const auto* value = answer->as_object().if_contains(name);
  return value == nullptr || !value->is_number() ? -1 : value->to_number<std::int64_t>();
}

std::int64_t FaultProxyProcess::route_count(const std::string& route) {
  auto answer = control(HttpMethod::get, "/proxy/stats");
  if (!answer.ok() || !answer->is_object()) return -1;
  const auto* routes = answer->as_object().if_contains("by_route");
  if (routes == nullptr || !routes->is_object()) return -1;
  const auto* count = routes->as_object().if_contains(route);
  return count == nullptr ? 0 : count->to_number<std::int64_t>();
}

}  // namespace tpslurm::slurm::testing
