// One client connection of the API server (server.h): reads requests with Beast's parser
// under the header and body limits (answering `Expect: 100-continue` once the headers are
// within them), the whole read (and each write) under the request-time
// limit, hands each request to the handler and writes its reply (a reply that waits — a long
// poll — is asked again whenever the journal watch sees a change, until it is ready; a reply
// with `later` work gets it done on the worker and awaits it); answers a limit that was hit
// (431, 413, 400 for a request that does not parse) and closes. serve_refusal() answers a
// connection over the connection limit with 503 and closes it. With `tls` set, a TCP
// connection first completes a TLS handshake (within the request time; a client that fails it
// is closed unanswered) and ends with close_notify. Internal to api/; the
// coroutines run on the server's one thread, which alone touches `ConnectionShared`. The
// accept loop counts a connection in `open` before it spawns serve_connection(), which
// counts it out when it ends.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/ssl/context.hpp>
#include <memory>

#include "api/server.h"

namespace tpslurm::api {

class JournalWatch;

struct ConnectionShared {
  ServerLimits limits;
  Handler handler;
  std::size_t open = 0;                      // connections being served now
  JournalWatch* watch = nullptr;             // wakes long polls (a reply's `wait`); none: they wait it out
  boost::asio::any_io_executor worker;       // runs a reply's `later` work, off the server's thread
  boost::asio::ssl::context* tls = nullptr;  // set: TCP connections speak TLS (HTTPS) only
};

boost::asio::awaitable<void> serve_connection(boost::asio::ip::tcp::socket socket,
                                              std::shared_ptr<ConnectionShared> shared);
boost::asio::awaitable<void> serve_connection(boost::asio::local::stream_protocol::socket socket,
                                              std::shared_ptr<ConnectionShared> shared);

boost::asio::awaitable<void> serve_refusal(boost::asio::ip::tcp::socket socket,
                                           std::shared_ptr<ConnectionShared> shared);
boost::asio::awaitable<void> serve_refusal(boost::asio::local::stream_protocol::socket socket,
                                           std::shared_ptr<ConnectionShared> shared);

}  // namespace tpslurm::api
