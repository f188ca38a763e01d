// ProxyServer: the fault proxy's listeners on one I/O thread (Boost.Asio/Beast).
//
// The proxied listener hands every connection to a client session (client_session.h), which
// forwards its requests to the upstream; the optional control listener serves only the
// control API (control_api.h) and never forwards. Both share one fault table and one set of
// counters, touched only on the I/O thread.
//
// Lifetime: create(), listen(), optionally listen_control(), then run() on one thread; stop()
// may be called from any thread and makes run() return. Destroy the server only after run()
// has returned: destruction closes every connection still open. Asio types stay in the .cc
// file and in the session headers.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "address.h"
#include "base/result.h"

namespace tpslurm::fault_proxy {

class ProxyServer {
 public:
  // Resolves the upstream once, now; an error names it when it does not resolve.
  static Result<std::unique_ptr<ProxyServer>> create(const HostPort& upstream, std::chrono::milliseconds timeout);
  ~ProxyServer();
  ProxyServer(const ProxyServer&) = delete;
  ProxyServer& operator=(const ProxyServer&) = delete;

  Status listen(const HostPort& where);
  Status listen_control(const HostPort& where);
  std::uint16_t port() const;
  std::uint16_t control_port() const;  // 0 without a control listener

  void run();
  void stop();

  struct Impl;  // defined in the .cc file

 private:
  explicit ProxyServer(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> m_impl;
};

}  // namespace tpslurm::fault_proxy
