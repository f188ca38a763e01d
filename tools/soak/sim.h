// Sim: tools/slurmrestd-sim started for the soak on loopback (a Slurm port and a /sim/ control
// port, both picked free and read from port files), as Slurm 26.05 with its own HS256 key, on
// the wall clock with job timings that end jobs on their own. control() is one call to the
// control API: the parsed JSON answer, or an error naming the call. Stopped (SIGTERM) when the
// object goes. Not thread-safe.
#pragma once

#include <boost/json.hpp>
#include <memory>
#include <string>

#include "base/result.h"
#include "process.h"
#include "slurm/curl_transport.h"

namespace tpslurm::soak {

struct SimConfig {
  std::string binary;
  std::string dir;     // key file, port files and sim.log go here
  std::string timing;  // "pending=1s,running=30s,completing=1s"
  int min_job_age_s = 300;
  bool accounting = true;  // false: --no-accounting (a cluster without slurmdbd)
};

class Sim {
 public:
  static Result<std::unique_ptr<Sim>> start(const SimConfig& config);
  ~Sim();

  std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }
  const std::string& key_file() const { return m_key_file; }
  pid_t pid() const { return m_process ? m_process->pid() : -1; }

  Result<boost::json::value> control(slurm::HttpMethod method, const std::string& path, const std::string& body = "{}");

 private:
  Sim() = default;
  std::optional<Process> m_process;
  std::unique_ptr<slurm::CurlTransport> m_control;
  int m_port = 0;
  std::string m_key_file;
};

}  // namespace tpslurm::soak
