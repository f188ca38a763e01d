// SimProcess: the slurmrestd-sim program (tools/slurmrestd-sim) run by a test, with its own
// HS256 key, reached only over HTTP: the Slurm API on one port, the control API (/sim/) on a
// second listener that stays up during a refuse-mode outage. start() waits (bounded) for the
// "listening on" lines; a simulator that cannot start is an error the test must fail on.
// The destructor stops it with SIGTERM. Not thread-safe.
#pragma once

#include <boost/json.hpp>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "control_client.h"
#include "slurm/curl_transport.h"
#include "slurm/jwt_source.h"
#include "support/child_process.h"
#include "support/temp_dir.h"

namespace tpslurm::slurm::testing {

class SimProcess {
 public:
  // `args` are passed after the listeners and the key, e.g. {"--release", "22.05.8"}.
  static Result<std::unique_ptr<SimProcess>> start(const std::vector<std::string>& args);
  ~SimProcess();

  std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }
  std::string control_url() const { return "http://127.0.0.1:" + std::to_string(m_control_port); }

  // A control call; the parsed answer, or an error naming the call and the status.
  Result<boost::json::value> control(HttpMethod method, const std::string& path, const std::string& body = {});
  // POST /sim/faults; returns the rule id.
  Result<std::int64_t> add_fault(const std::string& rule_json);
  // A counter of GET /sim/stats ("jobs_created", "submits_received", "requests", ...).
  std::int64_t stat(const std::string& name);
  // How many requests reached `route` ("GET /slurm/v0.0.45/jobs/state"; ids are "{job_id}").
  std::int64_t route_count(const std::string& route);
  // The simulated clock (GET /sim/clock).
  TimePoint now();

  // The simulator's HS256 key (a canary: tests/support/canary.h).
  const std::string& key() const { return m_key; }

  // A token source for `user` whose tokens the simulator accepts (signed with its key, valid
  // for a day of simulated time from now; each carries the canary as a claim).
  std::unique_ptr<TokenSource> tokens(const std::string& user = "root");

 private:
  SimProcess() = default;

  std::unique_ptr<tpslurm::testing::ChildProcess> m_child;
  int m_port = 0;
  int m_control_port = 0;
  std::unique_ptr<tpslurm::testing::TempDir> m_dir;
  std::string m_key;
  std::unique_ptr<ControlClient> m_control;
};

}  // namespace tpslurm::slurm::testing
