// Stats: what the simulator has been asked, for tests and benchmarks (`GET /sim/stats`).
//
// Counts requests per "METHOD route" (ids replaced by placeholders, e.g.
// "GET /slurm/v0.0.45/job/{job_id}"), bytes read and written on the wire, connections
// accepted, submit requests that reached the submit handler (the number that exposes a
// client re-sending a POST), job updates that reached the update handler, jobs created,
// and faults injected per kind. Not thread-safe: the server thread owns it.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace tpslurm::sim {

struct Stats {
  std::map<std::string, std::uint64_t> requests_by_route;
  std::map<std::string, std::uint64_t> faults_by_kind;
  std::uint64_t requests = 0;
  std::uint64_t bytes_in = 0;
  std::uint64_t bytes_out = 0;
  std::uint64_t connections = 0;
  std::uint64_t submits_received = 0;
  std::uint64_t updates_received = 0;  // POST job/{id} requests that reached the update handler
  std::uint64_t jobs_created = 0;
  std::uint64_t auth_failures = 0;

  void reset() { *this = Stats{}; }
};

}  // namespace tpslurm::sim
