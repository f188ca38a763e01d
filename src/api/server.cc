#include "api/server.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>
#include <variant>

#include "api/connection.h"
#include "api/journal_watch.h"
#include "base/file_system.h"
#include "config/logging.h"

namespace tpslurm::api {

namespace asio = boost::asio;
using asio::ip::tcp;
using unix_socket = asio::local::stream_protocol;

struct Server::Impl {
  asio::io_context io{1};
  asio::thread_pool worker{1};  // a reply's `later` work (exchange.h)
  std::optional<asio::ssl::context> tls;
  std::unique_ptr<JournalWatch> watch;
  std::optional<tcp::acceptor> tcp_acceptor;
  std::optional<unix_socket::acceptor> unix_acceptor;
  std::shared_ptr<ConnectionShared> shared;
  std::string where;
  std::string unix_path;
  std::uint16_t port = 0;
  std::thread thread;
  std::once_flag stopped;
};

namespace {

// 503s written at once; a connection refused beyond them is closed unanswered, so that refusing
// costs only so many descriptors.
constexpr std::size_t kMaxRefusing = 16;

std::string peer_of(const tcp::socket& socket) {
  boost::system::error_code error;
  const auto endpoint = socket.remote_endpoint(error);
  return error ? std::string("an unknown address") : endpoint.address().to_string();
}

// A unix socket's peers are processes of this host: the user they run as.
std::string peer_of(unix_socket::socket& socket) {
  ucred credentials{};
  socklen_t size = sizeof credentials;
  if (::getsockopt(socket.native_handle(), SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) return "uid unknown";
  return "uid " + std::to_string(credentials.uid);
}

template <class Acceptor>
asio::awaitable<void> accept_loop(Acceptor& acceptor, std::shared_ptr<ConnectionShared> shared) {
  const auto executor = co_await asio::this_coro::executor;
  while (true) {
    auto [error, socket] = co_await acceptor.async_accept(asio::as_tuple(asio::use_awaitable));
    if (error == asio::error::operation_aborted || !acceptor.is_open()) co_return;
    if (error) {
      // Out of file descriptors, say: the clients already connected are still served.
      shared->admission.accept_failed(error.message());
      asio::steady_timer pause(executor, std::chrono::milliseconds(100));
      co_await pause.async_wait(asio::as_tuple(asio::use_awaitable));
      continue;
    }
    auto admitted = shared->admission.admit(peer_of(socket), socket.native_handle());
    if (auto* ticket = std::get_if<std::unique_ptr<Admission::Ticket>>(&admitted)) {
      asio::co_spawn(executor, serve_connection(std::move(socket), shared, std::move(*ticket)), asio::detached);
    } else if (std::get<Admission::Refusal>(admitted) == Admission::Refusal::connections &&
               shared->refusing < kMaxRefusing) {
      asio::co_spawn(executor, serve_refusal(std::move(socket), shared), asio::detached);
    }
    // Otherwise the socket closes here, unanswered.
  }
}

Status listen_tcp(Server::Impl& impl, const model::ListenAddress& address) {
  boost::system::error_code error;
  const auto ip = asio::ip::make_address(address.host, error);
  if (error) return invalid_argument("TUNEPLANE_API_LISTEN: " + address.host + " is not an IP address");
  const tcp::endpoint endpoint(ip, address.port);
  impl.tcp_acceptor.emplace(impl.io);
  auto& acceptor = *impl.tcp_acceptor;
  acceptor.open(endpoint.protocol(), error);
  if (!error) acceptor.set_option(asio::socket_base::reuse_address(true), error);
  if (!error) acceptor.bind(endpoint, error);
  if (!error) acceptor.listen(asio::socket_base::max_listen_connections, error);
  if (error) {
    return transient("TUNEPLANE_API_LISTEN " + address.host + ":" + std::to_string(address.port) +
                     ": cannot listen: " + error.message());
  }
  impl.port = acceptor.local_endpoint().port();
  impl.where = (ip.is_v6() ? "[" + address.host + "]" : address.host) + ":" + std::to_string(impl.port);
  return {};
}

// Binds in a private directory beside the path, narrows the mode, then renames the socket
// into place: nobody can connect before it is 0660.
Status listen_unix(Server::Impl& impl, const std::string& path) {
  const std::string what = "TUNEPLANE_API_LISTEN unix:" + path;
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0) {
    if (!S_ISSOCK(info.st_mode))
      return invalid_argument(what + ": exists and is not a socket; remove it or pick another path");
    // A socket left by an earlier run: the journal's daemon lock keeps a second `serve` out.
    if (::unlink(path.c_str()) != 0) return system_error("remove the old API socket", path, errno);
  }
  std::string directory = parent_directory(path) + "/.tuneplane-api-XXXXXX";
  if (::mkdtemp(directory.data()) == nullptr)
    return system_error("create a directory beside the API socket", path, errno);
  const std::string staged = directory + "/s";
  boost::system::error_code error;
  impl.unix_acceptor.emplace(impl.io);
  auto& acceptor = *impl.unix_acceptor;
  std::string failed;
  acceptor.open(unix_socket(), error);
  if (!error) acceptor.bind(unix_socket::endpoint(staged), error);
  if (error) {
    failed = "cannot bind: " + error.message();
  } else if (::chmod(staged.c_str(), 0660) != 0 || ::rename(staged.c_str(), path.c_str()) != 0) {
    failed = std::string("cannot put the socket in place: ") + std::strerror(errno);
  } else {
    acceptor.listen(asio::socket_base::max_listen_connections, error);
    if (error) failed = "cannot listen: " + error.message();
  }
  ::unlink(staged.c_str());
  ::rmdir(directory.c_str());
  if (!failed.empty()) return transient(what + ": " + failed);
  impl.unix_path = path;
  impl.where = "unix:" + path;
  return {};
}

std::string openssl_reason(const boost::system::error_code& error) {
  std::string reason = error.message();
  return reason.empty() ? "refused by OpenSSL" : reason;
}

Status load_tls(Server::Impl& impl, const ServerTls& files) {
  impl.tls.emplace(asio::ssl::context::tls_server);
  auto& context = *impl.tls;
  boost::system::error_code error;
  context.set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                          asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 | asio::ssl::context::no_tlsv1_1 |
                          asio::ssl::context::single_dh_use,
                      error);
  if (error) return invalid_argument("TLS for the API: " + openssl_reason(error));
  context.use_certificate_chain_file(files.cert_file, error);
  if (error) return invalid_argument("TUNEPLANE_API_TLS_CERT " + files.cert_file + ": " + openssl_reason(error));
  // OpenSSL checks that the key is the certificate's. The key file is a secret: its path is
  // named, never its bytes.
  context.use_private_key_file(files.key_file, asio::ssl::context::pem, error);
  if (error) {
    return invalid_argument("TUNEPLANE_API_TLS_KEY " + files.key_file +
                            ": not usable as the private key of TUNEPLANE_API_TLS_CERT " + files.cert_file + " (" +
                            openssl_reason(error) + ")");
  }
  return {};
}

}  // namespace

Result<std::unique_ptr<Server>> Server::start(const model::ListenAddress& address, ServerLimits limits, Handler handler,
                                              const std::string& watch_journal, const std::optional<ServerTls>& tls,
                                              metrics::Metrics* metrics, BodyGate sweep_body_gate) {
  auto impl = std::make_unique<Impl>();
  if (tls) {
    if (address.is_unix())
      return invalid_argument("TLS for the API is for a TCP address, not unix:" + address.unix_path);
    if (Status loaded = load_tls(*impl, *tls); !loaded.ok()) return loaded.error();
  }
  impl->shared = std::make_shared<ConnectionShared>(limits, std::move(handler), metrics, impl->worker.get_executor(),
                                                    impl->tls ? &*impl->tls : nullptr);
  impl->shared->sweep_body_gate = std::move(sweep_body_gate);
  if (!watch_journal.empty()) {
    auto watch = JournalWatch::start(impl->io, watch_journal);
    if (!watch.ok()) return watch.error();
    impl->watch = std::move(*watch);
    impl->shared->watch = impl->watch.get();
  }
  Status listening = address.is_unix() ? listen_unix(*impl, address.unix_path) : listen_tcp(*impl, address);
  if (!listening.ok()) return listening.error();
  if (impl->tls) impl->where += " (HTTPS)";
  if (impl->tcp_acceptor) asio::co_spawn(impl->io, accept_loop(*impl->tcp_acceptor, impl->shared), asio::detached);
  if (impl->unix_acceptor) asio::co_spawn(impl->io, accept_loop(*impl->unix_acceptor, impl->shared), asio::detached);
  Impl* running = impl.get();
  impl->thread = std::thread([running] { running->io.run(); });
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Server::Server(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

Server::~Server() { stop(); }

void Server::stop() {
  std::call_once(m_impl->stopped, [this] {
    m_impl->io.stop();
    if (m_impl->thread.joinable()) m_impl->thread.join();
    // Work already running finishes (a Slurm call ends within its timeout); queued work is dropped.
    m_impl->worker.stop();
    m_impl->worker.join();
    boost::system::error_code ignored;
    if (m_impl->tcp_acceptor) m_impl->tcp_acceptor->close(ignored);
    if (m_impl->unix_acceptor) m_impl->unix_acceptor->close(ignored);
    if (!m_impl->unix_path.empty()) ::unlink(m_impl->unix_path.c_str());
  });
}

std::uint16_t Server::port() const { return m_impl->port; }

const std::string& Server::where() const { return m_impl->where; }

}  // namespace tpslurm::api
