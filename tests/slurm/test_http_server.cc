#include "test_http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>

namespace tpslurm::slurm::testing {
namespace {

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::string reason_phrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 422: return "Unprocessable Entity";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 504: return "Gateway Timeout";
    case 511: return "Network Authentication Required";
    default: return "Status";
  }
}

// Waits until fd is readable or the stop pipe fires; false on stop.
bool wait_readable(int fd, int stop_fd) {
  pollfd fds[2] = {{fd, POLLIN, 0}, {stop_fd, POLLIN, 0}};
  while (true) {
    const int n = ::poll(fds, 2, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (fds[1].revents != 0) return false;
    if (fds[0].revents != 0) return true;
  }
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// Reads more of the connection into `buffer`; false when the server stops, the peer closes or
// the read fails.
bool read_more(int fd, int stop_fd, std::string& buffer) {
  char chunk[8192];
  if (!wait_readable(fd, stop_fd)) return false;
  const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
  if (n <= 0) return false;
  buffer.append(chunk, static_cast<std::size_t>(n));
  return true;
}

// Reads until `buffer` holds a request's headers and returns where they end (at "\r\n\r\n");
// npos when the connection is to be closed.
std::size_t read_head(int fd, int stop_fd, std::string& buffer) {
  std::size_t header_end;
  while ((header_end = buffer.find("\r\n\r\n")) == std::string::npos) {
    // A TLS ClientHello on this plain-HTTP port: answer in plain text, as a misconfigured
    // server would, so the client's TLS handshake fails.
    if (!buffer.empty() && buffer[0] == '\x16') {
      write_all(fd, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      return std::string::npos;
    }
    if (!read_more(fd, stop_fd, buffer)) return std::string::npos;
  }
  return header_end;
}

// The request line and headers of `head` (header names lower-cased); no body.
ReceivedRequest parse_head(const std::string& head, int connection) {
  ReceivedRequest request;
  request.connection = connection;
  std::size_t line_end = head.find("\r\n");
  const std::string request_line = head.substr(0, line_end);
  const auto first_space = request_line.find(' ');
  const auto second_space = request_line.find(' ', first_space + 1);
  request.method = request_line.substr(0, first_space);
  request.target = request_line.substr(first_space + 1, second_space - first_space - 1);
  std::size_t position = line_end == std::string::npos ? head.size() : line_end + 2;
  while (position < head.size()) {
    std::size_t end = head.find("\r\n", position);
    if (end == std::string::npos) end = head.size();
    const std::string line = head.substr(position, end - position);
    const auto colon = line.find(':');
    if (colon != std::string::npos) {
      std::string value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.erase(0, 1);
      request.headers[lower(line.substr(0, colon))] = value;
    }
    position = end + 2;
  }
  return request;
}

std::string status_line(int status) {
  return "HTTP/1.1 " + std::to_string(status) + " " + reason_phrase(status) + "\r\n";
}

// Carries out `action` on the connection; true when it stays open for the next request.
bool perform(int fd, int stop_fd, const Action& action) {
  switch (action.kind) {
    case Action::Kind::reply: {
      std::string response = status_line(action.status);
      if (action.status != 304) {
        response += "Content-Type: " + action.content_type + "\r\n";
        response += "Content-Length: " + std::to_string(action.body.size()) + "\r\n";
      }
      if (!action.keep_alive) response += "Connection: close\r\n";
      response += "\r\n";
      if (action.status != 304) response += action.body;
      return write_all(fd, response) && action.keep_alive;
    }
    case Action::Kind::close: return false;
    case Action::Kind::reset: {
      linger option{1, 0};
      ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, sizeof option);
      return false;
    }
    case Action::Kind::hang: {
      // Until the client gives up (EOF) or the server stops.
      char chunk[8192];
      while (wait_readable(fd, stop_fd) && ::recv(fd, chunk, sizeof chunk, 0) > 0) {
      }
      return false;
    }
    case Action::Kind::truncate: {
      std::string response = status_line(action.status);
      response += "Content-Type: " + action.content_type + "\r\n";
      response += "Content-Length: " + std::to_string(action.declared_length) + "\r\n\r\n";
      response += action.body;
      write_all(fd, response);
      return false;
    }
  }
  return false;
}

}  // namespace

Action Action::reply(int status, std::string body, std::string content_type) {
  Action action;
  action.status = status;
  action.body = std::move(body);
  action.content_type = std::move(content_type);
  return action;
}
Action Action::close_without_reply() {
  Action action;
  action.kind = Kind::close;
  return action;
}
Action Action::reset() {
  Action action;
  action.kind = Kind::reset;
  return action;
}
Action Action::hang() {
  Action action;
  action.kind = Kind::hang;
  return action;
}
Action Action::truncated(int status, std::string partial_body, std::size_t declared_length) {
  Action action;
  action.kind = Kind::truncate;
  action.status = status;
  action.body = std::move(partial_body);
  action.declared_length = declared_length;
  return action;
}

std::unique_ptr<TestHttpServer> TestHttpServer::start_tcp(Handler handler) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return nullptr;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(fd, 16) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    ::close(fd);
    return nullptr;
  }
  const std::string url = "http://127.0.0.1:" + std::to_string(ntohs(address.sin_port));
  return std::unique_ptr<TestHttpServer>(new TestHttpServer(fd, url, std::move(handler)));
}

std::unique_ptr<TestHttpServer> TestHttpServer::start_unix(const std::string& path, Handler handler) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return nullptr;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof address.sun_path) {
    ::close(fd);
    return nullptr;
  }
  std::strcpy(address.sun_path, path.c_str());
  ::unlink(path.c_str());
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(fd, 16) != 0) {
    ::close(fd);
    return nullptr;
  }
  return std::unique_ptr<TestHttpServer>(new TestHttpServer(fd, "unix:" + path, std::move(handler)));
}

TestHttpServer::TestHttpServer(int listen_fd, std::string url, Handler handler)
    : m_listen_fd(listen_fd), m_url(std::move(url)), m_handler(std::move(handler)) {
  if (::pipe2(m_stop_pipe, O_CLOEXEC) != 0) std::abort();
  m_acceptor = std::thread([this] { accept_loop(); });
}

TestHttpServer::~TestHttpServer() {
  const char byte = 'x';
  [[maybe_unused]] auto written = ::write(m_stop_pipe[1], &byte, 1);
  m_acceptor.join();
  for (auto& thread : m_threads) thread.join();
  ::close(m_listen_fd);
  ::close(m_stop_pipe[0]);
  ::close(m_stop_pipe[1]);
}

std::string TestHttpServer::url() const { return m_url; }

std::vector<ReceivedRequest> TestHttpServer::requests() const {
  std::lock_guard lock(m_mutex);
  return m_requests;
}

void TestHttpServer::accept_loop() {
  while (wait_readable(m_listen_fd, m_stop_pipe[0])) {
    const int fd = ::accept4(m_listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    const int connection = ++m_connections;
    std::lock_guard lock(m_mutex);
    m_threads.emplace_back([this, fd, connection] { serve(fd, connection); });
  }
}

void TestHttpServer::serve(int fd, int connection) {
  std::string buffer;
  bool open = true;
  while (open) {
    // Read one request: headers, then Content-Length bytes of body.
    const std::size_t header_end = read_head(fd, m_stop_pipe[0], buffer);
    if (header_end == std::string::npos) break;
    ReceivedRequest request = parse_head(buffer.substr(0, header_end), connection);
    std::size_t body_length = 0;
    if (auto it = request.headers.find("content-length"); it != request.headers.end()) {
      body_length = std::stoul(it->second);
    }
    buffer.erase(0, header_end + 4);
    while (buffer.size() < body_length) {
      if (!read_more(fd, m_stop_pipe[0], buffer)) {
        ::close(fd);
        return;
      }
    }
    request.body = buffer.substr(0, body_length);
    buffer.erase(0, body_length);
    {
      std::lock_guard lock(m_mutex);
      m_requests.push_back(request);
    }
    open = perform(fd, m_stop_pipe[0], m_handler(request));
  }
  ::close(fd);
}

std::unique_ptr<BlackholeListener> BlackholeListener::start() {
  auto listener = std::unique_ptr<BlackholeListener>(new BlackholeListener());
  listener->m_listen_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener->m_listen_fd < 0) return nullptr;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (::bind(listener->m_listen_fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listener->m_listen_fd, 0) != 0 ||
      ::getsockname(listener->m_listen_fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    return nullptr;
  }
  listener->m_port = ntohs(address.sin_port);
  // Fill the accept queue (backlog 0 holds one connection) and wait for that connection to
  // complete; from then on the kernel drops every SYN for this port.
  const int filler = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (filler < 0) return nullptr;
  listener->m_fillers.push_back(filler);
  if (::connect(filler, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) return nullptr;
  return listener;
}

BlackholeListener::~BlackholeListener() {
  for (int fd : m_fillers) ::close(fd);
  if (m_listen_fd >= 0) ::close(m_listen_fd);
}

int unused_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

}  // namespace tpslurm::slurm::testing
