// CurlTransport: the Transport (transport.h) over libcurl.
//
// Reads reuse kept-alive connections from a small pool of easy handles; a request with
// Reuse::forbidden (every submit) gets a handle of its own with FRESH_CONNECT and
// FORBID_REUSE, so libcurl's silent re-send of a request on a reused connection that answered
// nothing can never turn one POST into two jobs. No proxy is taken from the environment
// (http_proxy, no_proxy, ...): only `proxy` below is used. `Expect:` is sent empty so no body
// waits on a 100-continue round trip. A request whose header values hold bytes a header cannot
// carry (CR, LF, other control bytes; transport.h) is refused before anything is sent.
// create() refuses a URL that would carry the JWT unencrypted to a host that is not loopback
// (model/rest_endpoint.h) unless `allow_insecure_http` says so. A request with a BodyReader
// has its body handed to the reader as libcurl receives it (the response keeps its first
// kKeptBodyBytes); the size limit counts every byte either way.
//
// `url` is "http://host:port", "https://host:port" or "unix:/path/to/socket" (slurmrestd's
// own spelling for a unix socket listener). Thread-safe: perform() may run on several threads.
// Header values (the JWT) are never logged, never put in `detail`, and curl's verbose mode is
// never enabled.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/result.h"
#include "model/settings.h"
#include "slurm/transport.h"

namespace tpslurm::slurm {

struct CurlTransportOptions {
  std::string url = "http://127.0.0.1:6820";
  bool tls_verify = true;
  std::string ca_file;  // empty: the system's CA store
  std::string proxy;    // empty: never a proxy, whatever the environment says
  std::chrono::milliseconds connect_timeout{5000};
  // The whole exchange, connecting included; HttpRequest::timeout replaces it per request.
  std::chrono::milliseconds total_timeout{60000};
  long low_speed_limit = 0;                 // bytes/s; 0: no low-speed check
  std::chrono::seconds low_speed_time{30};  // how long below the limit ends a transfer
  bool allow_insecure_http = false;
  // A full `GET /jobs` of 100,000 jobs is hundreds of MB on 26.05; beyond this the answer
  // is refused rather than exhausting memory.
  std::size_t max_response_bytes = std::size_t{1} << 30;
};

// The options Settings ask for: URL, TLS verification, CA file, timeouts, low-speed limit,
// proxy and whether plain http:// to a remote host is allowed.
CurlTransportOptions transport_options(const model::Settings& settings);

class CurlTransport final : public Transport {
 public:
  // invalid_argument when the URL is not one of the three forms above, or would send the
  // token unencrypted to a host that is not loopback without allow_insecure_http.
  static Result<std::unique_ptr<CurlTransport>> create(CurlTransportOptions options);
  ~CurlTransport() override;
  CurlTransport(const CurlTransport&) = delete;
  CurlTransport& operator=(const CurlTransport&) = delete;

  HttpExchange perform(const HttpRequest& request) override;
  std::string endpoint() const override { return m_options.url; }

 private:
  CurlTransport(CurlTransportOptions options, std::string base_url, std::string unix_socket);
  void* acquire(Reuse reuse);
  void release(void* handle, Reuse reuse);

  CurlTransportOptions m_options;
  std::string m_base_url;     // scheme://host:port, "http://localhost" for unix sockets
  std::string m_unix_socket;  // empty unless the URL is unix:
  std::mutex m_mutex;
  std::vector<void*> m_idle;  // CURL* kept with their connection caches, for reuse
};

}  // namespace tpslurm::slurm
