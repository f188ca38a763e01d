#include "upstream_call.h"

#include <boost/asio/connect.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <memory>

namespace tpslurm::fault_proxy {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = boost::asio::ip::tcp;

constexpr std::uint64_t kUpstreamBodyLimit = 1024ull * 1024 * 1024;

class UpstreamCall : public std::enable_shared_from_this<UpstreamCall> {
 public:
  UpstreamCall(boost::asio::any_io_executor executor, std::vector<tcp::endpoint> upstream, Request request,
               UpstreamDone done)
      : m_stream(std::move(executor)),
        m_upstream(std::move(upstream)),
        m_request(std::move(request)),
        m_done(std::move(done)) {
    m_parser.body_limit(kUpstreamBodyLimit);
    // An answer to HEAD announces a body it does not send.
    m_parser.skip(m_request.method() == http::verb::head);
  }

  // One deadline for the whole exchange: it is not reset between the steps.
  void start(std::chrono::milliseconds timeout) {
    m_stream.expires_after(timeout);
    m_stream.async_connect(m_upstream, [self = shared_from_this()](beast::error_code ec, const tcp::endpoint&) {
      if (ec) return self->finish(UpstreamOutcome::not_connected, "connect: " + ec.message());
      self->send();
    });
  }

 private:
  void send() {
    http::async_write(m_stream, m_request, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->finish(UpstreamOutcome::no_answer, "sending the request: " + ec.message());
      self->receive();
    });
  }

  void receive() {
    http::async_read(m_stream, m_buffer, m_parser, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->finish(UpstreamOutcome::no_answer, "reading the answer: " + ec.message());
      self->finish(UpstreamOutcome::answered, {});
    });
  }

  void finish(UpstreamOutcome outcome, std::string detail) {
    beast::error_code ignored;
    m_stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
    m_stream.close();
    UpstreamResult result;
    result.outcome = outcome;
    result.detail = std::move(detail);
    if (outcome == UpstreamOutcome::answered) result.response = m_parser.release();
    m_done(std::move(result));
  }

  beast::tcp_stream m_stream;
  std::vector<tcp::endpoint> m_upstream;
  Request m_request;
  UpstreamDone m_done;
  beast::flat_buffer m_buffer;
  http::response_parser<http::string_body> m_parser;
};

}  // namespace

void call_upstream(boost::asio::any_io_executor executor, const std::vector<tcp::endpoint>& upstream, Request request,
                   std::chrono::milliseconds timeout, UpstreamDone done) {
  std::make_shared<UpstreamCall>(std::move(executor), upstream, std::move(request), std::move(done))->start(timeout);
}

}  // namespace tpslurm::fault_proxy
