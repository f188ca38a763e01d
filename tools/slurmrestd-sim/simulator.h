// Simulator: a simulated slurmrestd + slurmctld + slurmdbd behind one request handler.
//
// handle() takes a parsed HTTP request and returns the reply and what the connection
// should do with it. Order of events for a Slurm call: outage window (close mode drops
// the request unprocessed), slurmrestd's header check (401), routing, slurmctld's token
// verification, the endpoint itself, then response faults (which therefore hit a
// request that has taken effect) and slow-controller delays. /sim/ requests go to the
// control API and are never authenticated or faulted.
//
// Owns the clock, job store, fault plan and stats. Not thread-safe: one server thread
// calls it; tests talk to it over HTTP.
#pragma once

#include <cstdint>
#include <memory>

#include "http_types.h"
#include "options.h"

namespace tpslurm::sim {

class Simulator {
 public:
  explicit Simulator(SimOptions options);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  HttpReply handle(const HttpRequest& request);

  // Hooks for the network layer.
  void note_connection();
  void note_bytes(std::uint64_t in, std::uint64_t out);
  // A refuse-mode outage is active: the listener must stay closed.
  bool refusing_connections();
  void set_ports(std::uint16_t port, std::uint16_t control_port);

  const SimOptions& options() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace tpslurm::sim
