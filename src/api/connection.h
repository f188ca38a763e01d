// One client connection of the API server (server.h): reads requests with Beast's parser
// under the header and body limits (answering `Expect: 100-continue` once the headers are
// within them) and the time limits — the headers within `first_request_time` while the
// connection has sent no valid token, within `idle_time` once it has, the body within
// `request_time` — hands each request to the handler and writes its reply (a reply that waits
// — a long poll — is asked again whenever the journal watch sees a change, until it is ready;
// a reply with `later` work gets it done on the worker and awaits it); answers a limit that
// was hit (431, 413, 400 for a request that does not parse) and closes. A reply to a request
// with a valid token moves the connection to the authenticated clients' pool (admission.h).
// serve_refusal() answers a connection refused for want of room with 503 and closes it. With
// `tls` set, a TCP connection first completes a TLS handshake (within `handshake_time`; a
// client that fails it is closed unanswered) and ends with close_notify. A time limit that
// runs out is counted in the metrics by what the connection was doing. Internal to api/; the
// coroutines run on the server's one thread, which alone touches `ConnectionShared`. The
// accept loop admits a connection (its ticket) before it spawns serve_connection(), which
// holds the ticket until it ends.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/ssl/context.hpp>
#include <memory>

#include "api/admission.h"
#include "api/server.h"

namespace tpslurm::api {

class JournalWatch;

struct ConnectionShared {
  ConnectionShared(const ServerLimits& limits_in, Handler handler_in, metrics::Metrics* metrics_in,
                   boost::asio::any_io_executor worker_in, boost::asio::ssl::context* tls_in)
      : limits(limits_in),
        handler(std::move(handler_in)),
        admission(limits_in, metrics_in),
        worker(std::move(worker_in)),
        tls(tls_in),
        metrics(metrics_in) {}

  ServerLimits limits;
  Handler handler;
  Admission admission;
  JournalWatch* watch = nullptr;             // wakes long polls (a reply's `wait`); none: they wait it out
  boost::asio::any_io_executor worker;       // runs a reply's `later` work, off the server's thread
  boost::asio::ssl::context* tls = nullptr;  // set: TCP connections speak TLS (HTTPS) only
  metrics::Metrics* metrics = nullptr;       // counts the time limits that ran out; may be null
  std::size_t refusing = 0;                  // 503s being written now
  BodyGate sweep_body_gate;                  // who may send a sweep's larger body (server.h)
};

boost::asio::awaitable<void> serve_connection(boost::asio::ip::tcp::socket socket,
                                              std::shared_ptr<ConnectionShared> shared,
                                              std::unique_ptr<Admission::Ticket> ticket);
boost::asio::awaitable<void> serve_connection(boost::asio::local::stream_protocol::socket socket,
                                              std::shared_ptr<ConnectionShared> shared,
                                              std::unique_ptr<Admission::Ticket> ticket);

boost::asio::awaitable<void> serve_refusal(boost::asio::ip::tcp::socket socket,
                                           std::shared_ptr<ConnectionShared> shared);
boost::asio::awaitable<void> serve_refusal(boost::asio::local::stream_protocol::socket socket,
                                           std::shared_ptr<ConnectionShared> shared);

}  // namespace tpslurm::api
