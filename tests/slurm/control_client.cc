#include "control_client.h"

#include <cstdlib>

namespace tpslurm::slurm::testing {
namespace {

int port_after(const std::string& line, const std::string& prefix) {
  if (line.rfind(prefix, 0) != 0) return 0;
  return std::atoi(line.c_str() + prefix.size());
}

}  // namespace

Listeners read_listeners(tpslurm::testing::ChildProcess& child, std::chrono::steady_clock::time_point deadline) {
  const std::string listening = child.read_line(deadline);
  const std::string control = child.read_line(deadline);
  Listeners listeners;
  listeners.port = port_after(listening, "listening on 127.0.0.1:");
  listeners.control_port = port_after(control, "control on 127.0.0.1:");
  listeners.lines = listening + "\n" + control + "\n";
  return listeners;
}

Result<std::unique_ptr<ControlClient>> ControlClient::create(int port) {
  CurlTransportOptions options;
  options.url = "http://127.0.0.1:" + std::to_string(port);
  options.connect_timeout = std::chrono::milliseconds(2000);
  options.total_timeout = std::chrono::milliseconds(10000);
  auto transport = CurlTransport::create(options);
  if (!transport.ok()) return transport.error();
  return std::unique_ptr<ControlClient>(new ControlClient(std::move(transport).value()));
}

Result<boost::json::value> ControlClient::call(HttpMethod method, const std::string& path, const std::string& body) {
  HttpRequest request;
  request.method = method;
  request.target = path;
  request.body = body;
  const HttpExchange exchange = m_transport->perform(request);
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

}  // namespace tpslurm::slurm::testing
