// ControlApi: the simulator's own endpoints under /sim/ (no auth, JSON in and out).
//
// Lets a test or benchmark drive what a real cluster would do on its own: step jobs,
// move the simulated clock, inject faults, reset job ids, bulk-create jobs, read stats.
// Every endpoint is documented in tools/slurmrestd-sim/README.md. Errors answer 400
// (bad input), 404 (unknown job or endpoint) or 409 (a step Slurm would not take) with
// {"error": "..."} naming the field and the fix. Not thread-safe: server thread only.
//
// handle() parses the body and finds the endpoint in one route table (control_api.cc);
// each endpoint is a handler of its own in control_*_routes.cc (control_routes.h).
#pragma once

#include <cstdint>

#include "faults.h"
#include "http_types.h"
#include "job_store.h"
#include "options.h"
#include "sim_clock.h"
#include "stats.h"
#include "url.h"

namespace tpslurm::sim {

// The parts of the simulator the control API reads and changes.
struct ControlParts {
  SimOptions& options;
  SimClock& clock;
  JobStore& store;
  FaultPlan& faults;
  Stats& stats;
  std::uint16_t port = 0;
  std::uint16_t control_port = 0;
};

class ControlApi {
 public:
  ControlApi(SimOptions& options, SimClock& clock, JobStore& store, FaultPlan& faults, Stats& stats)
      : m_sim{options, clock, store, faults, stats} {}

  HttpReply handle(const HttpRequest& request, const Target& target);
  void set_ports(std::uint16_t port, std::uint16_t control_port) {
    m_sim.port = port;
    m_sim.control_port = control_port;
  }

 private:
  ControlParts m_sim;
};

}  // namespace tpslurm::sim
