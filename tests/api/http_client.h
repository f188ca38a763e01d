// A real HTTP client for the API tests (libcurl): one request per call, on a fresh
// connection, to a TCP port on loopback or to a unix socket, with generous timeouts. And a
// raw socket for the clients curl will not be: one that sends half a request, or hangs up
// mid-request.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace tpslurm::api::testing {

struct HttpAnswer {
  long status = 0;  // 0: no answer (the message says why)
  std::string body;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string error;
};

struct Endpoint {
  int port = 0;              // TCP on 127.0.0.1 ...
  std::string unix_socket;   // ... or this socket
  std::string ca_file = {};  // set: HTTPS, trusting only this certificate
};

HttpAnswer http(const Endpoint& endpoint, const std::string& method, const std::string& target,
                const std::string& body = "", const std::vector<std::string>& headers = {});

// A connection to 127.0.0.1:port (or to a unix socket) that writes what it is told and reads
// what comes back.
class RawClient {
 public:
  explicit RawClient(int port);
  explicit RawClient(const std::string& unix_socket);
  ~RawClient();
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  bool connected() const { return m_fd >= 0; }
  bool send(const std::string& bytes);
  // Reads until the server closes the connection (true) or `limit` passes (false); what was
  // read is kept in received().
  bool wait_closed(std::chrono::seconds limit);
  // Reads until what was received holds `text` (true) or `limit` passes or the server
  // closes (false).
  bool wait_for(const std::string& text, std::chrono::seconds limit);
  const std::string& received() const { return m_received; }
  void close();

 private:
  int read_more(std::chrono::steady_clock::time_point deadline);

  int m_fd = -1;
  std::string m_received;
};

}  // namespace tpslurm::api::testing
