// The explorer's side of serve's platform API (docs/api.md): the bearer tokens file, the
// explorer's own authenticated client, and idle connections that hold a slot and send nothing.
//   ApiTokens       the tokens file (`NAME TOKEN` lines, mode 0600, renamed into place):
//                   write() with the client's line, revoke() without it
//   ApiClient       GET with `Authorization: Bearer` on a fresh connection each time (as a
//                   client that comes back now and then does); poll() says in words how serve
//                   refused it (401, 403, 503 too_many_connections, no answer), or nothing when
//                   it was served (any other answer: 200, 404, and 503 `unavailable`, the
//                   documented answer to a busy journal)
//   IdleConnections TCP connections to the API that never send a byte (a scanner, a client
//                   that hung), held until close() or destruction
// free_loopback_port() is a port no one listened on a moment ago (bound and closed). Not
// thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "slurm/curl_transport.h"

namespace tpslurm::soak {

class ApiTokens {
 public:
  ApiTokens(std::string path, std::string name, std::string token)
      : m_path(std::move(path)), m_name(std::move(name)), m_token(std::move(token)) {}
  Status write() const;
  Status revoke() const;
  const std::string& path() const { return m_path; }
  const std::string& token() const { return m_token; }

 private:
  Status put(const std::string& text) const;
  std::string m_path;
  std::string m_name;
  std::string m_token;
};

class ApiClient {
 public:
  static Result<std::unique_ptr<ApiClient>> create(int port, std::string token);
  // GET `path`: empty when served, else what went wrong ("503 too_many_connections", ...).
  std::string poll(const std::string& path);

 private:
  ApiClient(std::unique_ptr<slurm::CurlTransport> transport, std::string token)
      : m_transport(std::move(transport)), m_token(std::move(token)) {}
  std::unique_ptr<slurm::CurlTransport> m_transport;
  std::string m_token;
};

class IdleConnections {
 public:
  IdleConnections() = default;
  IdleConnections(const IdleConnections&) = delete;
  IdleConnections& operator=(const IdleConnections&) = delete;
  ~IdleConnections() { close(); }
  // Connects `count` more to 127.0.0.1:`port`; how many connected.
  int open(int port, int count);
  void close();
  std::size_t size() const { return m_fds.size(); }

 private:
  std::vector<int> m_fds;
};

// A free TCP port on 127.0.0.1; 0 when none could be had.
int free_loopback_port();

// A random bearer token carrying the secrets scan's canary (tests/support/canary.h).
std::string make_api_token();

}  // namespace tpslurm::soak
