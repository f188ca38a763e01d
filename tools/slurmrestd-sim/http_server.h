// Server: the simulator's HTTP/1.1 front end (Boost.Beast/Asio, one I/O thread).
//
// Accepts connections on the main listener (everything) and optionally on a control
// listener (/sim/ only, which stays up during a refuse-mode outage). Requests are parsed
// by Beast; replies are written byte for byte as slurmrestd writes them (Content-Length,
// Content-Type, "Connection: Close" on errors) so that the fault dispositions can cut
// them short: drop without answering, close mid-body under a full Content-Length, close
// after answering a kept-alive connection, answer late. Delays use timers, never block.
// A refuse-mode outage closes the main listening socket and reopens it on the same port
// when the outage ends.
//
// Lifetime: construct, listen(), then run() on one thread; stop() may be called from
// any thread and makes run() return. Destroy the Server only after run() has returned:
// destruction closes every connection still open. Asio types stay in the .cc file.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/result.h"
#include "simulator.h"

namespace tpslurm::sim {

class Server {
 public:
  explicit Server(Simulator& simulator);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  Status listen(const std::string& host, std::uint16_t port);
  Status listen_control(const std::string& host, std::uint16_t port);
  std::uint16_t port() const;
  std::uint16_t control_port() const;

  void run();
  void stop();

  struct Impl;  // defined in the .cc file (public only so its sessions can name it)

 private:
  std::unique_ptr<Impl> m_impl;
};

}  // namespace tpslurm::sim
