// Server: the platform API's HTTP/1.1 listener — Boost.Beast over Asio, on one thread of its
// own beside the daemon's reconciler — handing every request to a Handler (routes.h).
//
// It listens on a TCP address or a unix socket (model/listen_address.h). A unix socket is
// created mode 0660 without a moment of wider access (bound in a private directory, then
// renamed into place); a stale socket at the path is replaced, any other file refused; the
// socket is removed at stop().
//
// Limits, each answered so that the client learns which one it hit and every other client is
// still served: the request line and headers (431), the body (413), and time: a TLS handshake
// must end within `handshake_time`, a connection that has not sent a valid token yet must send
// its request line and headers within `first_request_time`, an authenticated one within
// `idle_time` of its last reply, and the body within `request_time` of its headers (as must
// each reply's write): a client that sends too slowly, e.g. half a request, is closed when its
// time runs out. Connections (admission.h): a new one is admitted by closing the oldest
// connections that sent no valid token yet when its peer holds `unauthenticated_per_peer` of
// them, or `unauthenticated` of them are open, or all `connections` are; only when every open
// connection is an authenticated client's is it answered 503 and closed. One that would leave
// fewer than `descriptor_reserve` file descriptors free is closed unanswered. After an error
// reply the connection is closed; keep-alive otherwise. A handler runs on the server's thread,
// one request at a time; a reply's deferred work (exchange.h) runs on a worker thread of its
// own, one at a time, while the server goes on serving. Refusals, timeouts and the open
// connections are counted in the metrics given to start() (metrics.h), and refusals logged
// once per episode.
//
// start() returns once the socket listens (errors name the address and the cause); stop() and
// the destructor close it, drop every connection and join the thread. Thread-safe: stop() may
// be called from any thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "api/exchange.h"
#include "base/result.h"
#include "model/listen_address.h"

namespace tpslurm::metrics {
class Metrics;
}

namespace tpslurm::api {

struct ServerLimits {
  std::size_t header_bytes = 16 * 1024;                 // request line and headers
  std::size_t body_bytes = 1 << 20;                     // the LaunchRequest limit
  std::size_t sweep_body_bytes = 16 << 20;              // POST /v1/sweeps with a submit token: the sweep limit
  std::size_t connections = 256;                        // open at once
  std::size_t unauthenticated = 64;                     // of those, without a valid token yet
  std::size_t unauthenticated_per_peer = 16;            // of those, from one IP (one uid on a unix socket)
  std::chrono::milliseconds handshake_time{5'000};      // a TLS handshake
  std::chrono::milliseconds first_request_time{5'000};  // headers, until the connection sent a valid token
  std::chrono::milliseconds idle_time{30'000};          // headers of an authenticated connection's next request
  std::chrono::milliseconds request_time{30'000};       // a body after its headers, or one reply's write
  std::size_t descriptor_reserve = 256;                 // file descriptors the server leaves free
};

using Handler = std::function<Reply(const ApiRequest&)>;
// Whether a request with this Authorization header may send POST /v1/sweeps's larger body
// (ServerLimits::sweep_body_bytes): asked once its headers are in, before any of its body is
// read, so that a client without a token that may submit makes the server read no more than
// any other route's limit. None: no request may.
using BodyGate = std::function<bool(std::string_view authorization)>;

// HTTPS on a TCP address: a PEM certificate chain and its private key, read at start(). TLS 1.2
// is the least version taken.
struct ServerTls {
  std::string cert_file;
  std::string key_file;
};

class Server {
 public:
  // `watch_journal`: the journal whose changes wake long polls (journal_watch.h); empty: none.
  // `tls`: serve HTTPS (TCP only); start() fails naming the file OpenSSL refused. `metrics`
  // (may be null) must outlive the server.
  static Result<std::unique_ptr<Server>> start(const model::ListenAddress& address, ServerLimits limits,
                                               Handler handler, const std::string& watch_journal = {},
                                               const std::optional<ServerTls>& tls = std::nullopt,
                                               metrics::Metrics* metrics = nullptr, BodyGate sweep_body_gate = {});
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  void stop();
  // The TCP port it listens on (the system's choice for port 0); 0 on a unix socket.
  std::uint16_t port() const;
  // "127.0.0.1:8740", "[::1]:8740" or "unix:/path" (with " (HTTPS)" under TLS), for the log.
  const std::string& where() const;

  struct Impl;

 private:
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
};

}  // namespace tpslurm::api
