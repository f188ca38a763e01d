// Test support: a simulator running in-process on a loopback port, a small libcurl
// client, and an HS256 token minter written independently of the simulator's verifier.
//
// SimInstance starts the server on port 0 in its own thread and stops it on destruction;
// tests talk to it only over real HTTP. HttpClient keeps one libcurl handle, so
// consecutive requests reuse a kept-alive connection unless `fresh_connection` is set
// (and reports whether a new connection was opened, which is how tests see the server
// close one). Not thread-safe; one client per thread.
#pragma once

#include <boost/json/value.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "http_server.h"
#include "options.h"
#include "simulator.h"

namespace tpslurm::sim::test {

inline constexpr char kTestKey[] = "0123456789abcdef0123456789abcdef";

class SimInstance {
 public:
  explicit SimInstance(SimOptions options, bool with_control_listener = false);
  ~SimInstance();
  std::uint16_t port() const { return m_server->port(); }
  std::uint16_t control_port() const { return m_server->control_port(); }
  std::string url(const std::string& path) const;
  std::string control_url(const std::string& path) const;

 private:
  std::unique_ptr<Simulator> m_sim;
  std::unique_ptr<Server> m_server;
  std::thread m_thread;
};

struct HttpResult {
  int curl_code = 0;        // CURLcode: 0 ok, 7 refused, 18 partial, 28 timeout, 52 empty reply
  long status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string status_line;
  long new_connections = 0;  // 0 when a kept-alive connection was reused

  // The body parsed once and kept: references into it live as long as this result.
  // A body that is not JSON fails the test and reads as null.
  const boost::json::value& json() const;
  bool has_header(const std::string& lower_name) const { return headers.count(lower_name) > 0; }

 private:
  mutable std::optional<boost::json::value> m_json;
};

struct RequestOptions {
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  long timeout_ms = 5000;
  bool fresh_connection = false;
};

class HttpClient {
 public:
  HttpClient();
  ~HttpClient();
  HttpResult request(const std::string& method, const std::string& url, const RequestOptions& options = {});

 private:
  void* m_curl;
};

// {"alg":"HS256","typ":"JWT"}.{"exp":exp,"iat":exp-3600,"sun":user} signed with `key`.
std::string mint_token(const std::string& key, const std::string& user, std::int64_t exp);
// A token without an "exp" claim.
std::string mint_token_without_exp(const std::string& key, const std::string& user);

// Options for a test simulator: manual clock and timing, the test key, accounting on.
SimOptions test_options(Release release = Release::r26_05_3);
// One REST version as one release serves it ("v0.0.45" on 26.05.3).
struct ServedVersion {
  Release release;
  std::string version;
};
// test_options for 22.05.8 as tools/local-slurm's cluster, where the recorded 22.05 sessions
// ran: cluster "tuneplane", partition debug, nodes vm and vm-emu with the features h100,
// cpuonly and emu, accounting on.
SimOptions local_slurm_22_05_options();

// Auth headers for `user` with a token valid for an hour on the test clock.
std::vector<std::pair<std::string, std::string>> auth_headers(const SimOptions& options, const std::string& user = "root");

// One authenticated Slurm call on a fresh connection.
HttpResult slurm_call(const SimInstance& sim, const SimOptions& options, const std::string& method,
                      const std::string& path, const std::string& body = "", const std::string& user = "root");

// A minimal valid v0.0.4x submit body.
std::string simple_job(const std::string& name = "job", const std::string& script = "#!/bin/bash\ntrue\n");

// Control API call; returns the parsed JSON answer (fails the test on a non-2xx).
boost::json::value control(const SimInstance& sim, const std::string& method, const std::string& path,
                           const std::string& body = "");
// The same, returning the raw result (for tests of control API errors).
HttpResult control_raw(const SimInstance& sim, const std::string& method, const std::string& path,
                       const std::string& body = "");

}  // namespace tpslurm::sim::test
