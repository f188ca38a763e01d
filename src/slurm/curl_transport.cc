#include "slurm/curl_transport.h"

#include <curl/curl.h>

#include <algorithm>
#include <array>
#include <mutex>

#include "base/crash_point.h"
#include "model/rest_endpoint.h"

namespace tpslurm::slurm {
namespace {

void global_init_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Sink {
  std::string* body;
  std::size_t limit;
  CURL* curl;
  BodyReader* reader = nullptr;  // set: the body goes to it, `body` keeps its first bytes
  std::size_t received = 0;
  bool overflowed = false;
  bool sized = false;
};

// A body with a Content-Length within the limit gets its whole buffer at once: a listing of
// every job is tens of megabytes, and growing a string to it by doubling copies it over and
// over and can hold twice its size.
void reserve_body(Sink& sink) {
  sink.sized = true;
  curl_off_t length = -1;
  if (curl_easy_getinfo(sink.curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length) != CURLE_OK) return;
  if (length > 0 && static_cast<std::uint64_t>(length) <= sink.limit)
    sink.body->reserve(static_cast<std::size_t>(length));
}

std::size_t write_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* sink = static_cast<Sink*>(user);
  const std::size_t bytes = size * count;
  if (sink->received + bytes > sink->limit) {
    sink->overflowed = true;
    return 0;  // makes libcurl stop with CURLE_WRITE_ERROR
  }
  sink->received += bytes;
  if (sink->reader != nullptr) {
    sink->reader->take(std::string_view(data, bytes));
    const std::size_t room = kKeptBodyBytes - std::min(kKeptBodyBytes, sink->body->size());
    sink->body->append(data, std::min(room, bytes));
    return bytes;
  }
  if (!sink->sized) reserve_body(*sink);
  sink->body->append(data, bytes);
  return bytes;
}

struct HeaderList {
  curl_slist* list = nullptr;
  ~HeaderList() { curl_slist_free_all(list); }
  void add(const std::string& line) { list = curl_slist_append(list, line.c_str()); }
};

// Codes libcurl only returns before the request was handed to the socket. They mean
// "not sent" only together with the timing check in classify(), because the same
// timeout code also covers a request that went out and was never answered.
bool before_send_code(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
    case CURLE_FAILED_INIT:
    case CURLE_OUT_OF_MEMORY: return true;
    default: return false;
  }
}

TransportFault fault_of(CURLcode code, bool request_left) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY: return TransportFault::dns;
    case CURLE_COULDNT_CONNECT: return TransportFault::connect_refused;
    case CURLE_OPERATION_TIMEDOUT: return request_left ? TransportFault::send_timeout : TransportFault::connect_timeout;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER: return TransportFault::tls_handshake;
    case CURLE_GOT_NOTHING: return TransportFault::empty_reply;
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR: return TransportFault::reset;
    case CURLE_PARTIAL_FILE: return TransportFault::truncated;
    default: return TransportFault::other;
  }
}

}  // namespace

CurlTransportOptions transport_options(const model::Settings& settings) {
  CurlTransportOptions options;
  options.url = settings.rest_url;
  options.tls_verify = settings.tls_verify;
  options.ca_file = settings.ca_file;
  options.proxy = settings.proxy;
  options.connect_timeout = settings.connect_timeout;
  options.total_timeout = settings.request_timeout;
  options.low_speed_limit = settings.low_speed_limit;
  options.low_speed_time = settings.low_speed_time;
  options.allow_insecure_http = settings.allow_insecure_http;
  return options;
}

Result<std::unique_ptr<CurlTransport>> CurlTransport::create(CurlTransportOptions options) {
  const std::string& url = options.url;
  std::string base = url;
  std::string socket;
  if (url.rfind("unix:", 0) == 0) {
    socket = url.substr(5);
    if (socket.empty() || socket.front() != '/') {
      return invalid_argument("REST URL \"" + url +
                              "\": a unix socket URL needs an absolute path, e.g. unix:/run/slurmrestd.sock");
    }
    base = "http://localhost";
  } else if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
    return invalid_argument("REST URL \"" + url + "\": use http://host:port, https://host:port or unix:/path");
  }
  while (!base.empty() && base.back() == '/') base.pop_back();
  if (auto host = model::cleartext_token_host(url, options.proxy); host && !options.allow_insecure_http) {
    return invalid_argument("REST URL \"" + url + "\": would send the JWT unencrypted over http:// to " + *host +
                            "; use https:// or a unix: socket, or set TUNEPLANE_SLURM_ALLOW_INSECURE_HTTP=1");
  }
  global_init_once();
  return std::unique_ptr<CurlTransport>(new CurlTransport(std::move(options), std::move(base), std::move(socket)));
}

CurlTransport::CurlTransport(CurlTransportOptions options, std::string base_url, std::string unix_socket)
    : m_options(std::move(options)), m_base_url(std::move(base_url)), m_unix_socket(std::move(unix_socket)) {}

CurlTransport::~CurlTransport() {
  for (void* handle : m_idle) curl_easy_cleanup(static_cast<CURL*>(handle));
}

void* CurlTransport::acquire(Reuse reuse) {
  if (reuse == Reuse::allowed) {
    std::lock_guard lock(m_mutex);
    if (!m_idle.empty()) {
      void* handle = m_idle.back();
      m_idle.pop_back();
      return handle;
    }
  }
  return curl_easy_init();
}

void CurlTransport::release(void* handle, Reuse reuse) {
  if (reuse == Reuse::allowed) {
    std::lock_guard lock(m_mutex);
    if (m_idle.size() < 8) {
      m_idle.push_back(handle);
      return;
    }
  }
  curl_easy_cleanup(static_cast<CURL*>(handle));
}

namespace {

// The first header line of a submit's answer: the request went out and the server answered,
// nothing of the answer has been read. The crash point "submit.sent" dies here.
std::size_t on_submit_header(char*, std::size_t size, std::size_t count, void* seen) {
  bool& first = *static_cast<bool*>(seen);
  if (!first) {
    first = true;
    crash_point("submit.sent");
  }
  return size * count;
}

// The connection's options, the same for every request: connect timeout, proxy (never the
// environment's), low-speed limit, TLS and the unix socket.
void set_connection_options(CURL* curl, const CurlTransportOptions& options, const std::string& unix_socket) {
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options.connect_timeout.count()));
  // An empty CURLOPT_PROXY disables proxies, the environment's included; an empty NOPROXY
  // keeps no_proxy from the environment out of an explicit proxy's decisions.
  curl_easy_setopt(curl, CURLOPT_PROXY, options.proxy.c_str());
  curl_easy_setopt(curl, CURLOPT_NOPROXY, "");
  if (options.low_speed_limit > 0) {
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, options.low_speed_limit);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, static_cast<long>(options.low_speed_time.count()));
  }
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, options.tls_verify ? 1L : 0L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, options.tls_verify ? 2L : 0L);
  if (!options.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, options.ca_file.c_str());
  if (!unix_socket.empty()) curl_easy_setopt(curl, CURLOPT_UNIX_SOCKET_PATH, unix_socket.c_str());
}

// The request's method and, for a POST (or a DELETE that has one: `DELETE jobs`), its body
// (sent from `request`, not copied).
void set_method(CURL* curl, const HttpRequest& request) {
  switch (request.method) {
    case HttpMethod::get: curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L); break;
    case HttpMethod::post:
      curl_easy_setopt(curl, CURLOPT_POST, 1L);
      curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
      curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
      break;
    case HttpMethod::del:
      curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, "DELETE");
      if (!request.body.empty()) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
      }
      break;
  }
}

}  // namespace

HttpExchange CurlTransport::perform(const HttpRequest& request) {
  HttpExchange exchange;
  for (const auto& [name, value] : request.headers) {
    if (auto problem = header_value_problem(value)) {
      exchange.fault = TransportFault::other;
      exchange.detail = "header " + name + " not sent: its value " + *problem;
      return exchange;
    }
  }
  CURL* curl = static_cast<CURL*>(acquire(request.reuse));
  if (curl == nullptr) {
    exchange.fault = TransportFault::other;
    exchange.detail = "libcurl could not create a handle";
    return exchange;
  }
  // Reset drops every option of the previous request but keeps the connection cache.
  curl_easy_reset(curl);

  std::array<char, CURL_ERROR_SIZE> error_buffer{};
  std::string body;
  Sink sink{&body, m_options.max_response_bytes, curl, request.reader};
  HeaderList headers;
  headers.add("Accept: application/json");
  headers.add("Expect:");
  if (request.method == HttpMethod::post || !request.body.empty()) headers.add("Content-Type: application/json");
  for (const auto& [name, value] : request.headers) headers.add(name + ": " + value);

  const std::string url = m_base_url + request.target;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer.data());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.list);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, write_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  set_connection_options(curl, m_options, m_unix_socket);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(request.timeout.value_or(m_options.total_timeout).count()));
  bool header_seen = false;
  if (request.reuse == Reuse::forbidden) {
    curl_easy_setopt(curl, CURLOPT_FRESH_CONNECT, 1L);
    curl_easy_setopt(curl, CURLOPT_FORBID_REUSE, 1L);
    if (request.method == HttpMethod::post) {
      curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_submit_header);
      curl_easy_setopt(curl, CURLOPT_HEADERDATA, &header_seen);
    }
  }
  set_method(curl, request);

  const CURLcode code = curl_easy_perform(curl);

  long status = 0;
  long request_size = 0;
  long connects = 0;
  curl_off_t pretransfer_us = 0;
  curl_off_t total_us = 0;
  char* content_type = nullptr;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_getinfo(curl, CURLINFO_REQUEST_SIZE, &request_size);
  curl_easy_getinfo(curl, CURLINFO_NUM_CONNECTS, &connects);
  curl_easy_getinfo(curl, CURLINFO_PRETRANSFER_TIME_T, &pretransfer_us);
  curl_easy_getinfo(curl, CURLINFO_TOTAL_TIME_T, &total_us);
  curl_easy_getinfo(curl, CURLINFO_CONTENT_TYPE, &content_type);
  exchange.elapsed = std::chrono::microseconds(total_us);
  exchange.connection_reused = code == CURLE_OK && connects == 0;

  if (code == CURLE_OK) {
    exchange.delivery = Delivery::answered;
    exchange.response.status = static_cast<int>(status);
    if (content_type != nullptr) exchange.response.content_type = content_type;
    exchange.response.body = std::move(body);
    exchange.response.streamed = request.reader != nullptr;
    exchange.response.streamed_bytes = request.reader != nullptr ? sink.received : 0;
  } else {
    // A request has left only once libcurl reached the transfer phase or counted request
    // bytes; the error code alone cannot tell (a timeout code covers both phases).
    const bool request_left = pretransfer_us > 0 || request_size > 0;
    exchange.delivery = (!request_left && before_send_code(code)) ? Delivery::not_sent : Delivery::uncertain;
    exchange.fault = sink.overflowed ? TransportFault::too_large : fault_of(code, request_left);
    exchange.detail = error_buffer[0] != '\0' ? std::string(error_buffer.data()) : curl_easy_strerror(code);
    if (sink.overflowed) {
      exchange.detail = "the answer exceeded " + std::to_string(m_options.max_response_bytes) + " bytes";
    }
  }
  // A handle whose transfer failed may hold a half-used connection; do not pool it.
  release(curl, code == CURLE_OK ? request.reuse : Reuse::forbidden);
  return exchange;
}

}  // namespace tpslurm::slurm
