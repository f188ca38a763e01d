// What SimProcess and FaultProxyProcess share on top of a ChildProcess: reading the two
// "listening on" lines a test program prints at start, and JSON calls to its control
// listener over a CurlTransport. Not thread-safe.
#pragma once

#include <boost/json.hpp>
#include <chrono>
#include <memory>
#include <string>

#include "base/result.h"
#include "slurm/curl_transport.h"
#include "support/child_process.h"

namespace tpslurm::slurm::testing {

struct Listeners {
  int port = 0;          // from "listening on 127.0.0.1:N"; 0 when the line did not come
  int control_port = 0;  // from "control on 127.0.0.1:M"; 0 when the line did not come
  std::string lines;     // the two lines as read, each with its newline
};

// Reads the two lines, waiting at most until `deadline`.
Listeners read_listeners(tpslurm::testing::ChildProcess& child, std::chrono::steady_clock::time_point deadline);

class ControlClient {
 public:
  // A client of "http://127.0.0.1:<port>" (2 s to connect, 10 s per call).
  static Result<std::unique_ptr<ControlClient>> create(int port);

  // The parsed answer; an error naming the call ("GET /sim/stats") and the delivery detail,
  // or the status and the body, or the body that is not JSON.
  Result<boost::json::value> call(HttpMethod method, const std::string& path, const std::string& body);

 private:
  explicit ControlClient(std::unique_ptr<CurlTransport> transport) : m_transport(std::move(transport)) {}

  std::unique_ptr<CurlTransport> m_transport;
};

}  // namespace tpslurm::slurm::testing
