// FaultProxyProcess: the tp-fault-proxy program (tools/fault-proxy) run by a test between the
// client and an upstream server (a SimProcess or a real slurmrestd), reached only over HTTP:
// proxied requests on one port, the control API (/proxy/) on a second listener. start()
// waits (bounded) for the "listening on" lines; a proxy that cannot start is an error the
// test must fail on, and its message carries what the proxy wrote to stderr. The destructor
// stops it with SIGTERM. Not thread-safe.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "control_client.h"
#include "slurm/curl_transport.h"
#include "support/child_process.h"
#include "support/temp_dir.h"

namespace tpslurm::slurm::testing {

class FaultProxyProcess {
 public:
  // Forwards to `upstream_url` ("http://127.0.0.1:PORT"); `args` follow the listeners, e.g.
  // {"--upstream-timeout-ms", "2000"}.
  static Result<std::unique_ptr<FaultProxyProcess>> start(const std::string& upstream_url,
                                                          const std::vector<std::string>& args = {});
  ~FaultProxyProcess();

  std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }
  std::string control_url() const { return "http://127.0.0.1:" + std::to_string(m_control_port); }

  // A control call; the parsed answer, or an error naming the call, the status and the body.
  Result<boost::json::value> control(HttpMethod method, const std::string& path, const std::string& body = {});
  // POST /proxy/faults; returns the rule id.
  Result<std::int64_t> add_fault(const std::string& rule_json);
  // A counter of GET /proxy/stats ("requests", "forwarded", "answers_lost", "resent", ...); -1
  // when the proxy does not answer or has no such counter.
  std::int64_t stat(const std::string& name);
  // How many requests reached `route` ("POST /slurm/v0.0.45/job/submit").
  std::int64_t route_count(const std::string& route);

  // Sends SIGTERM and waits; the exit code, or 128 + signal when it was killed.
  int stop();
  // Everything the proxy wrote to stdout and stderr so far.
  std::string output() const;

 private:
  FaultProxyProcess() = default;

  std::unique_ptr<tpslurm::testing::ChildProcess> m_child;
  int m_port = 0;
  int m_control_port = 0;
  std::string m_stdout;  // the lines start() read
  std::unique_ptr<tpslurm::testing::TempDir> m_dir;
  std::unique_ptr<ControlClient> m_control;
};

}  // namespace tpslurm::slurm::testing
