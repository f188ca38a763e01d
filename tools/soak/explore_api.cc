#include "explore_api.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <random>

namespace tpslurm::soak {
namespace {

sockaddr_in loopback(int port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return address;
}

// The `"error"` of an API error body ({"error": "too_many_connections", ...}); empty if none.
std::string error_code(const std::string& body) {
  const auto key = body.find("\"error\"");
  if (key == std::string::npos) return {};
  const auto open = body.find('"', body.find(':', key) + 1);
  const auto close = open == std::string::npos ? open : body.find('"', open + 1);
  return close == std::string::npos ? std::string() : body.substr(open + 1, close - open - 1);
}

}  // namespace

// The explorer's client only reads (GET /v1/jobs/...).
Status ApiTokens::write() const { return put(m_name + " " + m_token + " read\n"); }

Status ApiTokens::revoke() const { return put("# " + m_name + "'s token revoked\n"); }

Status ApiTokens::put(const std::string& text) const {
  const std::string temporary = m_path + ".new";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << text;
    if (!out) return permanent("cannot write " + temporary);
  }
  if (::chmod(temporary.c_str(), 0600) != 0 || std::rename(temporary.c_str(), m_path.c_str()) != 0) {
    return permanent("cannot put the API tokens in place at " + m_path);
  }
  return {};
}

Result<std::unique_ptr<ApiClient>> ApiClient::create(int port, std::string token) {
  slurm::CurlTransportOptions options;
  options.url = "http://127.0.0.1:" + std::to_string(port);
  options.connect_timeout = std::chrono::seconds(3);
  options.total_timeout = std::chrono::seconds(5);
  auto transport = slurm::CurlTransport::create(options);
  if (!transport.ok()) return transport.error();
  return std::unique_ptr<ApiClient>(new ApiClient(std::move(transport).value(), std::move(token)));
}

std::string ApiClient::poll(const std::string& path) {
  slurm::HttpRequest request;
  request.target = path;
  request.headers = {{"Authorization", "Bearer " + m_token}};
  request.reuse = slurm::Reuse::forbidden;
  const slurm::HttpExchange exchange = m_transport->perform(request);
  if (exchange.delivery != slurm::Delivery::answered) return "no answer (" + exchange.detail + ")";
  const int status = exchange.response.status;
  const std::string error = error_code(exchange.response.body);
  if (status == 401 || status == 403 || (status == 503 && error != "unavailable")) {
    return std::to_string(status) + (error.empty() ? std::string() : " " + error);
  }
  return {};
}

int IdleConnections::open(int port, int count) {
  int opened = 0;
  const sockaddr_in address = loopback(port);
  for (int i = 0; i < count; ++i) {
    // Non-blocking, with a second to connect: a full backlog must not hold the explorer.
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) break;
    const bool now = ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
    pollfd wait{fd, POLLOUT, 0};
    int error = 0;
    socklen_t length = sizeof error;
    const bool connected =
        now || (errno == EINPROGRESS && ::poll(&wait, 1, 1000) == 1 &&
                ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 && error == 0);
    if (!connected) {
      ::close(fd);
      break;
    }
    m_fds.push_back(fd);
    ++opened;
  }
  return opened;
}

void IdleConnections::close() {
  for (const int fd : m_fds) ::close(fd);
  m_fds.clear();
}

int free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in address = loopback(0);
  socklen_t length = sizeof address;
  int port = 0;
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  ::close(fd);
  return port;
}

std::string make_api_token() {
  std::random_device random;
  std::string token = "tpcanary-explore-api-";
  for (int i = 0; i < 32; ++i) token += "0123456789abcdef"[random() % 16];
  return token;
}

}  // namespace tpslurm::soak
