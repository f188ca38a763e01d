#include "api/connection.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <algorithm>
#include <optional>

#include "api/journal_watch.h"
#include "metrics/metrics.h"

namespace tpslurm::api {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);
// After an error reply, how long the rest of a refused request is read and dropped, so the
// reply is not lost to a reset while the client is still sending.
constexpr std::chrono::seconds kLingerAtMost{5};

// The reply for a request that could not be read, or nothing when the connection just ended
// (closed by the client, reset, timed out: nobody to answer, or nobody who deserves it).
std::optional<Reply> reply_for(const beast::error_code& error) {
  if (error == http::error::header_limit) {
    return error_reply(431, "headers_too_large", "the request line and headers exceed the API's limit");
  }
  if (error == http::error::body_limit) {
    return error_reply(413, "body_too_large", "the body exceeds the API's limit of 1 MiB (16 MiB for POST /v1/sweeps with a token that may submit)");
  }
  if (error == http::error::end_of_stream || error == beast::error::timeout || error == asio::error::eof ||
      error == asio::error::connection_reset || error == asio::error::operation_aborted ||
      error == http::error::partial_message) {
    return std::nullopt;
  }
  if (error.category() == http::make_error_code(http::error::bad_target).category()) {
    return error_reply(400, "malformed_request", "the request is not valid HTTP/1.1: " + error.message());
  }
  return std::nullopt;
}

template <class Stream>
asio::awaitable<beast::error_code> write_reply(Stream& stream, const Reply& reply, bool keep_alive, unsigned version) {
  http::response<http::string_body> response{static_cast<http::status>(reply.status), version};
  response.set(http::field::content_type, reply.content_type);
  response.set(http::field::server, "tuneplane-slurm");
  for (const auto& [name, value] : reply.headers) response.set(name, value);
  response.body() = reply.body;
  response.keep_alive(keep_alive);
  response.prepare_payload();
  auto [error, bytes] = co_await http::async_write(stream, response, kTuple);
  (void)bytes;
  co_return error;
}

// A time limit that ran out, counted by what the connection was doing.
void count_timeout(const ConnectionShared& shared, const beast::error_code& error, std::string_view phase) {
  if (error == beast::error::timeout && shared.metrics != nullptr) shared.metrics->count_api_connection_timeout(phase);
}

// Half-closes and drops what the client still sends, for a bounded time.
template <class Stream>
asio::awaitable<void> linger(Stream& stream, const ServerLimits& limits) {
  beast::error_code ignored;
  beast::get_lowest_layer(stream).socket().shutdown(asio::socket_base::shutdown_send, ignored);
  beast::get_lowest_layer(stream).expires_after(
      std::min<std::chrono::milliseconds>(limits.request_time, kLingerAtMost));
  char sink[4096];
  std::size_t dropped = 0;
  while (dropped <= 2 * limits.body_bytes) {
    auto [error, bytes] = co_await stream.async_read_some(asio::buffer(sink), kTuple);
    if (error) break;
    dropped += bytes;
  }
}

// "/v1/sweeps", with or without a query.
bool is_sweeps_target(std::string_view target) {
  constexpr std::string_view kPath = "/v1/sweeps";
  return target.substr(0, kPath.size()) == kPath && (target.size() == kPath.size() || target[kPath.size()] == '?');
}

bool wants_continue(const http::request_parser<http::string_body>& parser) {
  return beast::iequals(parser.get()[http::field::expect], "100-continue");
}

// The headers within `header_time`, then (after a `100 Continue` when the client waits for one)
// the body within the request time: trickling bytes extends neither. `phase` becomes
// "request" once the headers are in.
template <class Stream>
asio::awaitable<beast::error_code> read_request(Stream& stream, beast::flat_buffer& buffer,
                                                http::request_parser<http::string_body>& parser,
                                                std::chrono::milliseconds header_time, const ServerLimits& limits,
                                                const BodyGate& sweep_body_gate, std::string_view& phase) {
  auto& lowest = beast::get_lowest_layer(stream);
  lowest.expires_after(header_time);
  auto [error, bytes] = co_await http::async_read_header(stream, buffer, parser, kTuple);
  (void)bytes;
  if (error || parser.is_done()) co_return error;
  phase = "request";
  // A sweep names up to 10,000 runs: its route alone takes the larger body (model/sweep_request.h),
  // and only from a token that may submit, checked before a byte of the body is read. The parser
  // held the headers' Content-Length to the larger limit; the request's own is held here.
  const bool sweep = parser.get().method() == http::verb::post && is_sweeps_target(parser.get().target()) &&
                     sweep_body_gate && sweep_body_gate(parser.get()[http::field::authorization]);
  const std::size_t body_limit = sweep ? limits.sweep_body_bytes : limits.body_bytes;
  parser.body_limit(body_limit);
  if (const auto length = parser.content_length(); length && *length > body_limit) co_return http::error::body_limit;
  lowest.expires_after(limits.request_time);
  if (wants_continue(parser)) {
    http::response<http::empty_body> go_on{http::status::continue_, 11};
    auto [written, count] = co_await http::async_write(stream, go_on, kTuple);
    (void)count;
    if (written) co_return written;
  }
  auto [body_error, body_bytes] = co_await http::async_read(stream, buffer, parser, kTuple);
  (void)body_bytes;
  co_return body_error;
}

asio::awaitable<Reply> run_later(std::shared_ptr<Deferred> later) {
  try {
    co_return later->work();
  } catch (const std::exception& e) {
    co_return error_reply(500, "internal_error", e.what());
  }
}

// Deferred::start's reply, as an awaitable (no coroutine of its own): `done` resumes the
// waiting connection on its own executor, from whichever thread calls it.
auto started(std::shared_ptr<Deferred> later) {
  return asio::async_initiate<const asio::use_awaitable_t<>&, void(Reply)>(
      [](auto handler, std::shared_ptr<Deferred> deferred) {
        auto waiting = std::make_shared<decltype(handler)>(std::move(handler));
        auto executor = asio::get_associated_executor(*waiting);
        deferred->start([waiting, executor](Reply reply) {
          asio::post(executor,
                     [waiting, reply = std::move(reply)]() mutable { std::move (*waiting)(std::move(reply)); });
        });
      },
      asio::use_awaitable, std::move(later));
}

// The handler's reply, once it is ready: deferred work is done on the worker thread, or where
// its `start` hands it (this connection waits, the others are served); a long poll is asked again after each change the
// watch sees (`seen`: its generation before the handler first read the journal), and a last
// time when its wait is over.
asio::awaitable<Reply> answer(Reply reply, std::uint64_t seen, ConnectionShared& shared) {
  while (reply.later) {
    if (reply.later->start) {
      // Named, not temporaries of the co_await's full expression: GCC 12 destroys those twice.
      std::shared_ptr<Deferred> later = reply.later;
      auto awaiting = started(std::move(later));
      Reply ready = co_await std::move(awaiting);
      reply = std::move(ready);
    } else {
      reply = co_await asio::co_spawn(shared.worker, run_later(reply.later), asio::use_awaitable);
    }
  }
  while (reply.wait) {
    const std::shared_ptr<LongPoll> poll = reply.wait;
    if (shared.watch != nullptr) {
      co_await shared.watch->wait(seen, poll->until);
      seen = shared.watch->generation();
    } else {
      asio::steady_timer timer(co_await asio::this_coro::executor, poll->until);
      co_await timer.async_wait(kTuple);
    }
    const bool last = std::chrono::steady_clock::now() >= poll->until;
    if (std::optional<Reply> ready = poll->poll(last)) {
      reply = std::move(*ready);
    } else if (last) {
      reply = error_reply(500, "internal_error", "a long poll gave no reply at its end");
    }
  }
  co_return reply;
}

// Requests and replies on one connection until it ends, an error reply was sent, or the
// client did not ask to keep it alive. Closing is the caller's.
template <class Stream>
asio::awaitable<void> exchange(Stream& stream, ConnectionShared& shared, Admission::Ticket& ticket) {
  auto& lowest = beast::get_lowest_layer(stream);
  beast::flat_buffer buffer;
  const ServerLimits& limits = shared.limits;
  while (true) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(static_cast<std::uint32_t>(limits.header_bytes));
    parser.body_limit(std::max(limits.body_bytes, limits.sweep_body_bytes));
    // A client not known yet has a short while to say what it wants; a known one may keep its
    // connection idle for its next request.
    const bool known = ticket.is_authenticated();
    std::string_view phase = known ? "idle" : "first_request";
    beast::error_code error = co_await read_request(
        stream, buffer, parser, known ? limits.idle_time : limits.first_request_time, limits, shared.sweep_body_gate, phase);
    if (error) {
      count_timeout(shared, error, phase);
      if (auto reply = reply_for(error)) {
        lowest.expires_after(limits.request_time);
        if (!co_await write_reply(stream, *reply, false, 11)) co_await linger(stream, limits);
      }
      co_return;
    }
    auto& message = parser.get();
    const bool keep_alive = message.keep_alive();
    const ApiRequest request{std::string(message.method_string()), std::string(message.target()),
                             std::string(message[http::field::authorization]), std::move(message.body())};
    const std::uint64_t seen = shared.watch != nullptr ? shared.watch->generation() : 0;
    Reply handled = shared.handler(request);
    if (handled.authenticated) ticket.authenticated();
    const Reply reply = co_await answer(std::move(handled), seen, shared);
    lowest.expires_after(limits.request_time);
    const beast::error_code written = co_await write_reply(stream, reply, keep_alive, message.version());
    count_timeout(shared, written, "request");
    if (written || !keep_alive) co_return;
  }
}

template <class Stream>
void close(Stream& stream) {
  beast::error_code ignored;
  beast::get_lowest_layer(stream).socket().shutdown(asio::socket_base::shutdown_both, ignored);
}

// TLS's close_notify, for a bounded time (a client that never answers it is not waited for).
asio::awaitable<void> close_tls(beast::ssl_stream<beast::tcp_stream>& stream, const ServerLimits& limits) {
  beast::get_lowest_layer(stream).expires_after(
      std::min<std::chrono::milliseconds>(limits.request_time, kLingerAtMost));
  auto [error] = co_await stream.async_shutdown(kTuple);
  (void)error;
  close(stream);
}

// Closes the connection at once, its pending reads and writes cancelled (admission.h).
template <class Stream>
void drop(Stream& stream) {
  beast::get_lowest_layer(stream).close();
}

template <class Protocol>
asio::awaitable<void> serve(typename Protocol::socket socket, std::shared_ptr<ConnectionShared> shared,
                            std::unique_ptr<Admission::Ticket> ticket) {
  beast::basic_stream<Protocol> stream(std::move(socket));
  ticket->on_close([&stream] { drop(stream); });
  if (!ticket->closed()) {
    co_await exchange(stream, *shared, *ticket);
    close(stream);
  }
  ticket.reset();  // before the stream its closer names
}

asio::awaitable<void> handshake_and_serve(beast::ssl_stream<beast::tcp_stream>& stream, ConnectionShared& shared,
                                          Admission::Ticket& ticket) {
  beast::get_lowest_layer(stream).expires_after(shared.limits.handshake_time);
  auto [error] = co_await stream.async_handshake(asio::ssl::stream_base::server, kTuple);
  if (error) {
    count_timeout(shared, error, "handshake");
    close(stream);  // not TLS, no certificate it trusts, or nothing sent: nobody to answer
    co_return;
  }
  co_await exchange(stream, shared, ticket);
  co_await close_tls(stream, shared.limits);
}

asio::awaitable<void> serve_tls(asio::ip::tcp::socket socket, std::shared_ptr<ConnectionShared> shared,
                                std::unique_ptr<Admission::Ticket> ticket) {
  beast::ssl_stream<beast::tcp_stream> stream(std::move(socket), *shared->tls);
  ticket->on_close([&stream] { drop(stream); });
  if (!ticket->closed()) co_await handshake_and_serve(stream, *shared, *ticket);
  ticket.reset();  // before the stream its closer names
}

// Counts a 503 being written (the accept loop writes only so many at once).
struct Refusing {
  explicit Refusing(ConnectionShared& shared_in) : shared(shared_in) { ++shared.refusing; }
  ~Refusing() { --shared.refusing; }
  Refusing(const Refusing&) = delete;
  Refusing& operator=(const Refusing&) = delete;
  ConnectionShared& shared;
};

template <class Stream>
asio::awaitable<void> refuse(Stream& stream, const ServerLimits& limits) {
  beast::get_lowest_layer(stream).expires_after(limits.first_request_time);
  Reply reply = error_reply(503, "too_many_connections", "the API serves as many connections as it may; try again");
  reply.headers.emplace_back("Retry-After", "1");
  co_await write_reply(stream, reply, false, 11);
}

template <class Protocol>
asio::awaitable<void> refuse_plain(typename Protocol::socket socket, std::shared_ptr<ConnectionShared> shared) {
  Refusing refusing(*shared);
  beast::basic_stream<Protocol> stream(std::move(socket));
  co_await refuse(stream, shared->limits);
  close(stream);
}

asio::awaitable<void> refuse_tls(asio::ip::tcp::socket socket, std::shared_ptr<ConnectionShared> shared) {
  Refusing refusing(*shared);
  beast::ssl_stream<beast::tcp_stream> stream(std::move(socket), *shared->tls);
  beast::get_lowest_layer(stream).expires_after(shared->limits.handshake_time);
  auto [error] = co_await stream.async_handshake(asio::ssl::stream_base::server, kTuple);
  if (!error) {
    co_await refuse(stream, shared->limits);
    co_await close_tls(stream, shared->limits);
  } else {
    close(stream);
  }
}

}  // namespace

asio::awaitable<void> serve_connection(asio::ip::tcp::socket socket, std::shared_ptr<ConnectionShared> shared,
                                       std::unique_ptr<Admission::Ticket> ticket) {
  if (shared->tls != nullptr) return serve_tls(std::move(socket), std::move(shared), std::move(ticket));
  return serve<asio::ip::tcp>(std::move(socket), std::move(shared), std::move(ticket));
}
asio::awaitable<void> serve_connection(asio::local::stream_protocol::socket socket,
                                       std::shared_ptr<ConnectionShared> shared,
                                       std::unique_ptr<Admission::Ticket> ticket) {
  return serve<asio::local::stream_protocol>(std::move(socket), std::move(shared), std::move(ticket));
}
asio::awaitable<void> serve_refusal(asio::ip::tcp::socket socket, std::shared_ptr<ConnectionShared> shared) {
  if (shared->tls != nullptr) return refuse_tls(std::move(socket), std::move(shared));
  return refuse_plain<asio::ip::tcp>(std::move(socket), std::move(shared));
}
asio::awaitable<void> serve_refusal(asio::local::stream_protocol::socket socket,
                                    std::shared_ptr<ConnectionShared> shared) {
  return refuse_plain<asio::local::stream_protocol>(std::move(socket), std::move(shared));
}

}  // namespace tpslurm::api
