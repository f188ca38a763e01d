#include "http_server.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <chrono>
#include <optional>
#include <string_view>

namespace tpslurm::sim {

namespace net = boost::asio;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;

namespace {

constexpr auto kIdleTimeout = std::chrono::seconds(300);
constexpr std::uint64_t kBodyLimit = 256ull * 1024 * 1024;

std::string status_line_reason(const HttpReply& reply) {
  return reply.reason.empty() ? std::string(reason_phrase(reply.status)) : reply.reason;
}

// The bytes slurmrestd would put on the wire for this reply.
std::string serialize(const HttpReply& reply, unsigned version) {
  std::string out = version == 10 ? "HTTP/1.0 " : "HTTP/1.1 ";
  out += std::to_string(reply.status) + " " + status_line_reason(reply) + "\r\n";
  if (reply.close) out += "Connection: Close\r\n";
  out += "Content-Length: " + std::to_string(reply.body.size()) + "\r\n";
  if (!reply.content_type.empty()) out += "Content-Type: " + reply.content_type + "\r\n";
  out += "\r\n";
  return out;
}

}  // namespace

struct Server::Impl {
  explicit Impl(Simulator& sim) : simulator(sim), acceptor(io), control_acceptor(io), outage_timer(io) {}

  Simulator& simulator;
  net::io_context io{1};
  tcp::acceptor acceptor;
  tcp::acceptor control_acceptor;
  tcp::endpoint endpoint;
  net::steady_timer outage_timer;
  bool refusing = false;
  bool stopped = false;

  Status open(tcp::acceptor& a, const tcp::endpoint& ep) {
    boost::system::error_code ec;
    a.open(ep.protocol(), ec);
    if (!ec) a.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) a.bind(ep, ec);
    if (!ec) a.listen(net::socket_base::max_listen_connections, ec);
    if (ec) {
      boost::system::error_code ignored;
      a.close(ignored);
      return transient("cannot listen on " + ep.address().to_string() + ":" + std::to_string(ep.port()) + ": " +
                       ec.message());
    }
    return ok_status();
  }

  void accept(tcp::acceptor& a, bool control_only);

  // Closes or reopens the main listener to follow a refuse-mode outage.
  void check_outage() {
    if (stopped) return;
    const bool refuse = simulator.refusing_connections();
    if (refuse && !refusing) {
      refusing = true;
      boost::system::error_code ec;
      acceptor.close(ec);
    } else if (!refuse && refusing) {
      if (open(acceptor, endpoint)) {
        refusing = false;
        accept(acceptor, false);
      }
    }
  }

  void watch_outage() {
    outage_timer.expires_after(std::chrono::milliseconds(20));
    outage_timer.async_wait([self = this](boost::system::error_code ec) {
      if (ec || self->stopped) return;
      self->check_outage();
      self->watch_outage();
    });
  }
};

namespace {

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, Server::Impl* server, bool control_only)
      : m_socket(std::move(socket)), m_timer(m_socket.get_executor()), m_server(server),
        m_control_only(control_only) {
    boost::system::error_code ec;
    auto local = m_socket.local_endpoint(ec);
    m_source = (ec ? std::string("127.0.0.1:0") : local.address().to_string() + ":" + std::to_string(local.port())) +
               "(fd:" + std::to_string(m_socket.native_handle()) + ")";
  }

  void start() { read(); }

 private:
  void read() {
    m_parser.emplace();
    m_parser->body_limit(kBodyLimit);
    m_parser->header_limit(1024 * 1024);
    arm_idle_timer();
    http::async_read(m_socket, m_buffer, *m_parser,
                     [self = shared_from_this()](boost::system::error_code ec, std::size_t bytes) {
                       self->on_read(ec, bytes);
                     });
  }

  void arm_idle_timer() {
    m_timer.expires_after(kIdleTimeout);
    m_timer.async_wait([weak = std::weak_ptr<Session>(shared_from_this())](boost::system::error_code ec) {
      if (ec) return;
      if (auto self = weak.lock()) self->close();
    });
  }

  void on_read(boost::system::error_code ec, std::size_t bytes) {
    m_timer.cancel();
    if (ec) {
      if (ec != http::error::end_of_stream && ec != net::error::operation_aborted && ec != net::error::eof &&
          ec != net::error::connection_reset) {
        // A request Beast cannot parse: slurmrestd rejects it and hangs up.
        send_raw(serialize(text_reply(400, "Unable to parse HTTP request", true), 11) + "Unable to parse HTTP request", true);
        return;
      }
      close();
      return;
    }
    auto& req = m_parser->get();
    HttpRequest request;
    request.method = std::string(req.method_string());
    request.target = std::string(req.target());
    for (const auto& field : req) request.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    request.body = std::move(req.body());
    request.client_source = m_source;
    request.keep_alive = req.keep_alive();
    m_version = req.version();

    HttpReply reply;
    if (m_control_only && request.target.rfind("/sim/", 0) != 0) {
      reply = text_reply(404, "the control listener serves only /sim/", true);
    } else {
      reply = m_server->simulator.handle(request);
    }
    m_server->simulator.note_bytes(bytes, 0);
    if (request.target.rfind("/sim/", 0) == 0) m_server->check_outage();
    if (!request.keep_alive) reply.close = true;

    if (reply.delay_ms > 0) {
      m_timer.expires_after(std::chrono::milliseconds(reply.delay_ms));
      m_timer.async_wait([self = shared_from_this(), reply = std::move(reply)](boost::system::error_code wait_ec) mutable {
        if (wait_ec) return;
        self->act(std::move(reply));
      });
      return;
    }
    act(std::move(reply));
  }

  void act(HttpReply reply) {
    switch (reply.disposition) {
      case Disposition::drop:
        close();
        return;
      case Disposition::close_mid_body: {
        std::string bytes = serialize(reply, m_version);
        bytes.append(reply.body, 0, reply.body.size() / 2);
        send_raw(std::move(bytes), true);
        return;
      }
      case Disposition::close_after_answer:
        send_raw(serialize(reply, m_version) + reply.body, true);
        return;
      case Disposition::answer:
        send_raw(serialize(reply, m_version) + reply.body, reply.close);
        return;
    }
  }

  void send_raw(std::string bytes, bool close_after) {
    m_out = std::move(bytes);
    net::async_write(m_socket, net::buffer(m_out),
                     [self = shared_from_this(), close_after](boost::system::error_code ec, std::size_t written) {
                       self->m_server->simulator.note_bytes(0, written);
                       if (ec || close_after) {
                         self->close();
                         return;
                       }
                       self->read();
                     });
  }

  void close() {
    boost::system::error_code ec;
    m_timer.cancel();
    m_socket.shutdown(tcp::socket::shutdown_both, ec);
    m_socket.close(ec);
  }

  tcp::socket m_socket;
  net::steady_timer m_timer;
  Server::Impl* m_server;  // outlives every session: it owns the io_context
  bool m_control_only;
  boost::beast::flat_buffer m_buffer;
  std::optional<http::request_parser<http::string_body>> m_parser;
  std::string m_out;
  std::string m_source;
  unsigned m_version = 11;
};

}  // namespace

void Server::Impl::accept(tcp::acceptor& a, bool control_only) {
  a.async_accept([self = this, &a, control_only](boost::system::error_code ec, tcp::socket socket) {
    if (ec) return;  // closed (outage or stop)
    self->simulator.note_connection();
    std::make_shared<Session>(std::move(socket), self, control_only)->start();
    if (a.is_open()) self->accept(a, control_only);
  });
}

Server::Server(Simulator& simulator) : m_impl(std::make_unique<Impl>(simulator)) {}

// Destroying the io_context destroys every pending handler, and with them the sessions.
Server::~Server() = default;

Status Server::listen(const std::string& host, std::uint16_t port) {
  boost::system::error_code ec;
  auto address = net::ip::make_address(host, ec);
  if (ec) return invalid_argument("listen address \"" + host + "\" is not an IP address");
  Status st = m_impl->open(m_impl->acceptor, tcp::endpoint(address, port));
  if (!st) return st;
  m_impl->endpoint = m_impl->acceptor.local_endpoint();
  m_impl->accept(m_impl->acceptor, false);
  m_impl->simulator.set_ports(this->port(), control_port());
  return ok_status();
}

Status Server::listen_control(const std::string& host, std::uint16_t port) {
  boost::system::error_code ec;
  auto address = net::ip::make_address(host, ec);
  if (ec) return invalid_argument("control address \"" + host + "\" is not an IP address");
  Status st = m_impl->open(m_impl->control_acceptor, tcp::endpoint(address, port));
  if (!st) return st;
  m_impl->accept(m_impl->control_acceptor, true);
  m_impl->simulator.set_ports(this->port(), control_port());
  return ok_status();
}

std::uint16_t Server::port() const { return m_impl->endpoint.port(); }

std::uint16_t Server::control_port() const {
  boost::system::error_code ec;
  if (!m_impl->control_acceptor.is_open()) return 0;
  auto ep = m_impl->control_acceptor.local_endpoint(ec);
  return ec ? 0 : ep.port();
}

void Server::run() {
  m_impl->watch_outage();
  m_impl->io.run();
}

void Server::stop() {
  Impl* impl = m_impl.get();
  net::post(impl->io, [impl]() {
    impl->stopped = true;
    boost::system::error_code ec;
    impl->acceptor.close(ec);
    impl->control_acceptor.close(ec);
    impl->outage_timer.cancel();
    impl->io.stop();
  });
}

}  // namespace tpslurm::sim
