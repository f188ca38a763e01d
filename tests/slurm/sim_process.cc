#include "sim_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

#include "slurm/jwt.h"

namespace tpslurm::slurm::testing {
namespace {

// One line from `fd`, waiting at most until `deadline`; empty on timeout or end of file.
std::string read_line(int fd, std::chrono::steady_clock::time_point deadline) {
  std::string line;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
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

class StaticTokens final : public TokenSource {
 public:
  StaticTokens(std::string user, std::string token) : m_user(std::move(user)), m_token(std::move(token)) {}
  Result<Credentials> credentials() override { return Credentials{m_user, m_token, std::nullopt}; }
  std::string describe() const override { return "a token signed with the simulator's key"; }

 private:
  std::string m_user;
  std::string m_token;
};

}  // namespace

Result<std::unique_ptr<SimProcess>> SimProcess::start(const std::vector<std::string>& args) {
  std::unique_ptr<SimProcess> sim(new SimProcess());
  sim->m_dir = std::make_unique<tpslurm::testing::TempDir>();
  sim->m_key = "client2-test-key-0123456789abcdef";
  const std::string key_file = sim->m_dir->file("jwt_hs256.key");
  tpslurm::testing::write_test_file(key_file, sim->m_key);

  std::vector<std::string> argv{SIM_BINARY, "--listen", "127.0.0.1:0", "--control-listen", "127.0.0.1:0",
                                "--key-file", key_file};
  argv.insert(argv.end(), args.begin(), args.end());
  int out[2];
  if (::pipe(out) != 0) return permanent("slurmrestd-sim: pipe() failed");
  const pid_t pid = ::fork();
  if (pid < 0) return permanent("slurmrestd-sim: fork() failed");
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
  sim->m_pid = pid;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  sim->m_port = port_after(read_line(out[0], deadline), "listening on 127.0.0.1:");
  sim->m_control_port = port_after(read_line(out[0], deadline), "control on 127.0.0.1:");
  // Kept open until the end: a write to a closed pipe would kill the simulator (SIGPIPE).
  sim->m_out = out[0];
  if (sim->m_port == 0 || sim->m_control_port == 0) {
    return permanent("slurmrestd-sim (" + std::string(SIM_BINARY) +
                     ") did not report its ports within 20 s; run it by hand with the same arguments to see why");
  }
  CurlTransportOptions options;
  options.url = sim->control_url();
  options.connect_timeout = std::chrono::milliseconds(2000);
  options.total_timeout = std::chrono::milliseconds(10000);
  auto control = CurlTransport::create(options);
  if (!control.ok()) return control.error();
  sim->m_control = std::move(control).value();
  auto health = sim->control(HttpMethod::get, "/sim/health");
  if (!health.ok()) return health.error();
  return sim;
}

SimProcess::~SimProcess() {
  if (m_pid > 0) {
    ::kill(m_pid, SIGTERM);
    int status = 0;
    ::waitpid(m_pid, &status, 0);
  }
  if (m_out >= 0) ::close(m_out);
}

Result<boost::json::value> SimProcess::control(HttpMethod method, const std::string& path, const std::string& body) {
  HttpRequest request;
  request.method = method;
  request.target = path;
  request.body = body;
  if (method == HttpMethod::post && request.body.empty()) request.body = "{}";
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

Result<std::int64_t> SimProcess::add_fault(const std::string& rule_json) {
  auto answer = control(HttpMethod::post, "/sim/faults", rule_json);
  if (!answer.ok()) return answer.error();
  return answer->at("id").to_number<std::int64_t>();
}

std::int64_t SimProcess::stat(const std::string& name) {
  auto answer = control(HttpMethod::get, "/sim/stats");
  if (!answer.ok() || !answer->is_object()) return -1;
  const auto* value = answer->as_object().if_contains(name);
  return value == nullptr ? -1 : value->to_number<std::int64_t>();
}

std::int64_t SimProcess::route_count(const std::string& route) {
  auto answer = control(HttpMethod::get, "/sim/stats");
  if (!answer.ok() || !answer->is_object()) return -1;
  const auto* routes = answer->as_object().if_contains("requests_by_route");
  if (routes == nullptr || !routes->is_object()) return -1;
  const auto* count = routes->as_object().if_contains(route);
  return count == nullptr ? 0 : count->to_number<std::int64_t>();
}

TimePoint SimProcess::now() {
  auto answer = control(HttpMethod::get, "/sim/clock");
  if (!answer.ok()) return {};
  return TimePoint(std::chrono::milliseconds(answer->at("now_ms").to_number<std::int64_t>()));
}

std::unique_ptr<TokenSource> SimProcess::tokens(const std::string& user) {
  return std::make_unique<StaticTokens>(user, mint_hs256(m_key, user, now(), std::chrono::hours(24)));
}

}  // namespace tpslurm::slurm::testing
