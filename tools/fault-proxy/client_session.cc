#include "client_session.h"

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <memory>
#include <optional>

#include "upstream_call.h"

namespace tpslurm::fault_proxy {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

constexpr std::uint64_t kClientBodyLimit = 256ull * 1024 * 1024;

// What a gateway in front of the upstream says when it gives up: an HTML page, not Slurm's
// JSON, so the client cannot read a job id (or anything else) out of it.
Response gateway_answer(int status, unsigned version, bool keep_alive, const std::string& detail) {
  const auto known = http::int_to_status(static_cast<unsigned>(status));
  const std::string reason = known == http::status::unknown ? "Error" : std::string(http::obsolete_reason(known));
  const std::string title = std::to_string(status) + " " + reason;
  Response answer;
  answer.version(version);
  answer.result(static_cast<unsigned>(status));
  answer.reason(reason);
  answer.set(http::field::content_type, "text/html");
  answer.body() = "<html>\r\n<head><title>" + title + "</title></head>\r\n<body>\r\n<center><h1>" + title +
                  "</h1></center>\r\n" + (detail.empty() ? "" : "<p>" + detail + "</p>\r\n") +
                  "<hr><center>tp-fault-proxy</center>\r\n</body>\r\n</html>\r\n";
  answer.keep_alive(keep_alive);
  answer.prepare_payload();
  return answer;
}

class ClientSession : public std::enable_shared_from_this<ClientSession> {
 public:
  ClientSession(tcp::socket socket, ProxyContext& context)
      : m_socket(std::move(socket)), m_timer(m_socket.get_executor()), m_context(context) {}

  void read() {
    m_parser.emplace();
    m_parser->body_limit(kClientBodyLimit);
    http::async_read(m_socket, m_buffer, *m_parser,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_request(ec); });
  }

 private:
  void on_request(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == net::error::eof || ec == net::error::connection_reset ||
        ec == net::error::operation_aborted) {
      return close();
    }
    if (ec) {
      m_answer = gateway_answer(400, 11, false, "the request could not be parsed: " + ec.message());
      return write(false);
    }
    m_request = m_parser->release();
    const std::string_view target = m_request.target();
    const std::string_view path = target.substr(0, target.find('?'));
    const std::string_view method = m_request.method_string();
    ProxyStats& stats = m_context.stats;
    ++stats.requests;
    ++stats.by_route[std::string(method) + " " + std::string(path)];
    m_action = m_context.faults.take(method, path);
    m_first.reset();
    if (m_action) {
      switch (m_action->kind) {
        case FaultKind::resend: ++stats.resent; break;
        case FaultKind::delay: ++stats.delayed; break;
        case FaultKind::error_status: ++stats.replaced; break;
        case FaultKind::lose_answer: break;
      }
    }
    forward();
  }

  void forward() {
    ++m_context.stats.forwarded;
    call_upstream(m_socket.get_executor(), m_context.upstream, m_request, m_context.upstream_timeout,
                  [self = shared_from_this()](UpstreamResult result) { self->on_upstream(std::move(result)); });
  }

  void on_upstream(UpstreamResult result) {
    if (result.outcome != UpstreamOutcome::answered) ++m_context.stats.upstream_failures;
    if (!m_action) return relay(std::move(result));
    switch (m_action->kind) {
      case FaultKind::lose_answer:
        if (result.outcome == UpstreamOutcome::answered) ++m_context.stats.answers_lost;
        return close();
      case FaultKind::resend:
        // The second send starts only after the first exchange ended, on a new connection:
        // the upstream sees the same request twice, one after the other.
        if (!m_first) {
          m_first = std::move(result);
          return forward();
        }
        return relay(m_action->relay == Relay::first ? std::move(*m_first) : std::move(result));
      case FaultKind::delay:
        m_delayed = std::move(result);
        m_timer.expires_after(std::chrono::milliseconds(m_action->delay_ms));
        m_timer.async_wait([self = shared_from_this()](beast::error_code ec) {
          if (ec) return self->close();
          self->relay(std::move(*self->m_delayed));
        });
        return;
      case FaultKind::error_status:
        m_answer = gateway_answer(m_action->status, m_request.version(), m_request.keep_alive(), "");
        return write(m_request.keep_alive());
    }
  }

  void relay(UpstreamResult result) {
    switch (result.outcome) {
      case UpstreamOutcome::answered: {
        m_answer = std::move(result.response);
        // An answer whose body ends with the connection (no length, not chunked) can only be
        // relayed the same way.
        const bool keep = m_request.keep_alive() && m_answer.keep_alive() && !m_answer.need_eof();
        return write(keep);
      }
      case UpstreamOutcome::not_connected:
        m_answer = gateway_answer(502, m_request.version(), false,
                                  "upstream " + m_context.upstream_url + ": " + result.detail);
        return write(false);
      case UpstreamOutcome::no_answer: return close();
    }
  }

  void write(bool keep_alive) {
    http::async_write(m_socket, m_answer, [self = shared_from_this(), keep_alive](beast::error_code ec, std::size_t) {
      if (ec || !keep_alive) return self->close();
      self->read();
    });
  }

  void close() {
    beast::error_code ignored;
    m_timer.cancel();
    m_socket.shutdown(tcp::socket::shutdown_both, ignored);
    m_socket.close(ignored);
  }

  tcp::socket m_socket;
  net::steady_timer m_timer;
  ProxyContext& m_context;
  beast::flat_buffer m_buffer;
  std::optional<http::request_parser<http::string_body>> m_parser;
  Request m_request;
  std::optional<FaultAction> m_action;      // the rule applied to m_request, if any
  std::optional<UpstreamResult> m_first;    // a resend's first exchange
  std::optional<UpstreamResult> m_delayed;  // an answer waiting for its delay
  Response m_answer;                        // what is being written to the client
};

}  // namespace

void start_client_session(tcp::socket socket, ProxyContext& context) {
  std::make_shared<ClientSession>(std::move(socket), context)->read();
}

}  // namespace tpslurm::fault_proxy
