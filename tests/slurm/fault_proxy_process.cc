#include "fault_proxy_process.h"

#include <chrono>

namespace tpslurm::slurm::testing {
namespace {

constexpr auto kStartLimit = std::chrono::seconds(20);

}  // namespace

Result<std::unique_ptr<FaultProxyProcess>> FaultProxyProcess::start(const std::string& upstream_url,
                                                                    const std::vector<std::string>& args) {
  std::unique_ptr<FaultProxyProcess> proxy(new FaultProxyProcess());
  proxy->m_dir = std::make_unique<tpslurm::testing::TempDir>();
  std::vector<std::string> argv{FAULT_PROXY_BINARY, "--listen",   "127.0.0.1:0", "--control-listen",
                                "127.0.0.1:0",      "--upstream", upstream_url};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string error;
  proxy->m_child = tpslurm::testing::ChildProcess::start(argv, proxy->m_dir->file("stderr"), error);
  if (proxy->m_child == nullptr) return permanent("tp-fault-proxy: " + error);
  const auto deadline = std::chrono::steady_clock::now() + kStartLimit;
  const Listeners listeners = read_listeners(*proxy->m_child, deadline);
  proxy->m_stdout = listeners.lines;
  proxy->m_port = listeners.port;
  proxy->m_control_port = listeners.control_port;
  if (proxy->m_port == 0 || proxy->m_control_port == 0) {
    return permanent("tp-fault-proxy (" + std::string(FAULT_PROXY_BINARY) + ") did not report its ports within " +
                     std::to_string(kStartLimit.count()) + " s; it said: " + proxy->output());
  }
  auto transport = ControlClient::create(proxy->m_control_port);
  if (!transport.ok()) return transport.error();
  proxy->m_control = std::move(transport).value();
  auto stats = proxy->control(HttpMethod::get, "/proxy/stats");
  if (!stats.ok()) return stats.error();
  return proxy;
}

// The proxy stops before the temporary directory with its stderr file goes.
FaultProxyProcess::~FaultProxyProcess() { m_child.reset(); }

int FaultProxyProcess::stop() { return m_child == nullptr ? -1 : m_child->stop(); }

std::string FaultProxyProcess::output() const {
  const std::string later = m_child == nullptr ? "" : m_child->read_available();
  return m_stdout + later + tpslurm::testing::read_test_file(m_dir->file("stderr"));
}

Result<boost::json::value> FaultProxyProcess::control(HttpMethod method, const std::string& path,
                                                      const std::string& body) {
  return m_control->call(method, path, body);
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
