#include "proxy_server.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <optional>

#include "client_session.h"
#include "control_api.h"

namespace tpslurm::fault_proxy {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

struct ProxyServer::Impl {
  ProxyContext context;  // first: it outlives the sessions the io_context destroys
  net::io_context io{1};
  tcp::acceptor acceptor{io};
  tcp::acceptor control_acceptor{io};

  Status open(tcp::acceptor& a, const HostPort& where) {
    boost::system::error_code ec;
    const auto address = net::ip::make_address(where.host, ec);
    if (ec) return invalid_argument("listen address \"" + where.text() + "\": the host is not an IP address");
    const tcp::endpoint endpoint(address, where.port);
    a.open(endpoint.protocol(), ec);
    if (!ec) a.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) a.bind(endpoint, ec);
    if (!ec) a.listen(net::socket_base::max_listen_connections, ec);
    if (ec) {
      boost::system::error_code ignored;
      a.close(ignored);
      return transient("cannot listen on " + where.text() + ": " + ec.message());
    }
    return ok_status();
  }

  void accept(tcp::acceptor& a, bool control);
};

namespace {

// A connection to the control listener: JSON requests answered from the fault table and
// the counters, one after the other, until the client closes.
class ControlSession : public std::enable_shared_from_this<ControlSession> {
 public:
  ControlSession(tcp::socket socket, ProxyContext& context) : m_socket(std::move(socket)), m_context(context) {}

  void read() {
    m_parser.emplace();
    m_parser->body_limit(1024 * 1024);
    http::async_read(m_socket, m_buffer, *m_parser,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_request(ec); });
  }

 private:
  void on_request(beast::error_code ec) {
    if (ec) return close();
    const auto& request = m_parser->get();
    const ControlReply reply =
        handle_control(request.method_string(), request.target(), request.body(), m_context.faults, m_context.stats);
    m_answer = {};
    m_answer.version(request.version());
    m_answer.result(static_cast<unsigned>(reply.status));
    m_answer.set(http::field::content_type, "application/json");
    m_answer.body() = reply.body;
    m_answer.keep_alive(request.keep_alive());
    m_answer.prepare_payload();
    http::async_write(m_socket, m_answer, [self = shared_from_this()](beast::error_code write_ec, std::size_t) {
      if (write_ec || !self->m_answer.keep_alive()) return self->close();
      self->read();
    });
  }

  void close() {
    beast::error_code ignored;
    m_socket.shutdown(tcp::socket::shutdown_both, ignored);
    m_socket.close(ignored);
  }

  tcp::socket m_socket;
  ProxyContext& m_context;
  beast::flat_buffer m_buffer;
  std::optional<http::request_parser<http::string_body>> m_parser;
  http::response<http::string_body> m_answer;
};

}  // namespace

void ProxyServer::Impl::accept(tcp::acceptor& a, bool control) {
  a.async_accept([self = this, &a, control](boost::system::error_code ec, tcp::socket socket) {
    if (!a.is_open()) return;  // closed by stop()
    if (ec) return self->accept(a, control);
    if (control) {
      std::make_shared<ControlSession>(std::move(socket), self->context)->read();
    } else {
      start_client_session(std::move(socket), self->context);
    }
    self->accept(a, control);
  });
}

Result<std::unique_ptr<ProxyServer>> ProxyServer::create(const HostPort& upstream, std::chrono::milliseconds timeout) {
  auto impl = std::make_unique<Impl>();
  boost::system::error_code ec;
  tcp::resolver resolver(impl->io);
  const auto resolved = resolver.resolve(upstream.host, std::to_string(upstream.port), ec);
  if (ec || resolved.empty()) {
    return transient("upstream http://" + upstream.text() + ": cannot resolve " + upstream.host + ": " + ec.message());
  }
  for (const auto& entry : resolved) impl->context.upstream.push_back(entry.endpoint());
  impl->context.upstream_url = "http://" + upstream.text();
  impl->context.upstream_timeout = timeout;
  return std::unique_ptr<ProxyServer>(new ProxyServer(std::move(impl)));
}

ProxyServer::ProxyServer(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

// Destroying the io_context destroys every pending handler, and with them the sessions.
ProxyServer::~ProxyServer() = default;

Status ProxyServer::listen(const HostPort& where) {
  if (auto st = m_impl->open(m_impl->acceptor, where); !st) return st;
  m_impl->accept(m_impl->acceptor, false);
  return ok_status();
}

Status ProxyServer::listen_control(const HostPort& where) {
  if (auto st = m_impl->open(m_impl->control_acceptor, where); !st) return st.error().with_context("control");
  m_impl->accept(m_impl->control_acceptor, true);
  return ok_status();
}

std::uint16_t ProxyServer::port() const {
  boost::system::error_code ec;
  const auto endpoint = m_impl->acceptor.local_endpoint(ec);
  return ec ? 0 : endpoint.port();
}

std::uint16_t ProxyServer::control_port() const {
  boost::system::error_code ec;
  if (!m_impl->control_acceptor.is_open()) return 0;
  const auto endpoint = m_impl->control_acceptor.local_endpoint(ec);
  return ec ? 0 : endpoint.port();
}

void ProxyServer::run() { m_impl->io.run(); }

void ProxyServer::stop() {
  Impl* impl = m_impl.get();
  net::post(impl->io, [impl]() {
    boost::system::error_code ignored;
    impl->acceptor.close(ignored);
    impl->control_acceptor.close(ignored);
    impl->io.stop();
  });
}

}  // namespace tpslurm::fault_proxy
