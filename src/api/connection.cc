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
#include <optional>

#include "api/journal_watch.h"

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
    return error_reply(413, "body_too_large", "the body exceeds the API's limit of 1 MiB");
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
asio::awaitable<bool> write_reply(Stream& stream, const Reply& reply, bool keep_alive, unsigned version) {
  http::response<http::string_body> response{static_cast<http::status>(reply.status), version};
  response.set(http::field::content_type, reply.content_type);
  response.set(http::field::server, "tuneplane-slurm");
  for (const auto& [name, value] : reply.headers) response.set(name, value);
  response.body() = reply.body;
  response.keep_alive(keep_alive);
  response.prepare_payload();
  auto [error, bytes] = co_await http::async_write(stream, response, kTuple);
  (void)bytes;
  co_return !error;
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

bool wants_continue(const http::request_parser<http::string_body>& parser) {
  return beast::iequals(parser.get()[http::field::expect], "100-continue");
}

// The headers, then (after a `100 Continue` when the client waits for one) the body.
template <class Stream>
asio::awaitable<beast::error_code> read_request(Stream& stream, beast::flat_buffer& buffer,
                                                http::request_parser<http::string_body>& parser) {
  auto [error, bytes] = co_await http::async_read_header(stream, buffer, parser, kTuple);
  (void)bytes;
  if (error || parser.is_done()) co_return error;
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
asio::awaitable<void> exchange(Stream& stream, ConnectionShared& shared) {
  auto& lowest = beast::get_lowest_layer(stream);
  beast::flat_buffer buffer;
  const ServerLimits& limits = shared.limits;
  while (true) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(static_cast<std::uint32_t>(limits.header_bytes));
    parser.body_limit(limits.body_bytes);
    // One deadline for the whole request, headers and body: trickling bytes does not extend it.
    lowest.expires_after(limits.request_time);
    beast::error_code error = co_await read_request(stream, buffer, parser);
    if (error) {
      if (auto reply = reply_for(error)) {
        lowest.expires_after(limits.request_time);
        if (co_await write_reply(stream, *reply, false, 11)) co_await linger(stream, limits);
      }
      co_return;
    }
    auto& message = parser.get();
    const bool keep_alive = message.keep_alive();
    const ApiRequest request{std::string(message.method_string()), std::string(message.target()),
                             std::string(message[http::field::authorization]), std::move(message.body())};
    const std::uint64_t seen = shared.watch != nullptr ? shared.watch->generation() : 0;
    const Reply reply = co_await answer(shared.handler(request), seen, shared);
    lowest.expires_after(limits.request_time);
    if (!co_await write_reply(stream, reply, keep_alive, message.version()) || !keep_alive) co_return;
  }
}

// Counted in `open` by the accept loop before the spawn; counted out when the connection ends.
struct Counted {
  ConnectionShared& shared;
  ~Counted() { --shared.open; }
};

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

template <class Protocol>
asio::awaitable<void> serve(typename Protocol::socket socket, std::shared_ptr<ConnectionShared> shared) {
  Counted counted{*shared};
  beast::basic_stream<Protocol> stream(std::move(socket));
  co_await exchange(stream, *shared);
  close(stream);
}

asio::awaitable<void> serve_tls(asio::ip::tcp::socket socket, std::shared_ptr<ConnectionShared> shared) {
  Counted counted{*shared};
  beast::ssl_stream<beast::tcp_stream> stream(std::move(socket), *shared->tls);
  // The handshake is part of the first request's time.
  beast::get_lowest_layer(stream).expires_after(shared->limits.request_time);
  auto [error] = co_await stream.async_handshake(asio::ssl::stream_base::server, kTuple);
  if (error) {
    close(stream);  // not TLS, or no certificate it trusts: nobody to answer
    co_return;
  }
  co_await exchange(stream, *shared);
  co_await close_tls(stream, shared->limits);
}

template <class Stream>
asio::awaitable<void> refuse(Stream& stream, const ServerLimits& limits) {
  beast::get_lowest_layer(stream).expires_after(
      std::min<std::chrono::milliseconds>(limits.request_time, kLingerAtMost));
  Reply reply = error_reply(503, "too_many_connections", "the API serves as many connections as it may; try again");
  reply.headers.emplace_back("Retry-After", "1");
  co_await write_reply(stream, reply, false, 11);
}

template <class Protocol>
asio::awaitable<void> refuse_plain(typename Protocol::socket socket, std::shared_ptr<ConnectionShared> shared) {
  beast::basic_stream<Protocol> stream(std::move(socket));
  co_await refuse(stream, shared->limits);
  close(stream);
}

asio::awaitable<void> refuse_tls(asio::ip::tcp::socket socket, std::shared_ptr<ConnectionShared> shared) {
  beast::ssl_stream<beast::tcp_stream> stream(std::move(socket), *shared->tls);
  beast::get_lowest_layer(stream).expires_after(
      std::min<std::chrono::milliseconds>(shared->limits.request_time, kLingerAtMost));
  auto [error] = co_await stream.async_handshake(asio::ssl::stream_base::server, kTuple);
  if (!error) {
    co_await refuse(stream, shared->limits);
    co_await close_tls(stream, shared->limits);
  } else {
    close(stream);
  }
}

}  // namespace

asio::awaitable<void> serve_connection(asio::ip::tcp::socket socket, std::shared_ptr<ConnectionShared> shared) {
  if (shared->tls != nullptr) return serve_tls(std::move(socket), std::move(shared));
  return serve<asio::ip::tcp>(std::move(socket), std::move(shared));
}
asio::awaitable<void> serve_connection(asio::local::stream_protocol::socket socket,
                                       std::shared_ptr<ConnectionShared> shared) {
  return serve<asio::local::stream_protocol>(std::move(socket), std::move(shared));
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
