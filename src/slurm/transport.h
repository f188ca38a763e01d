// Transport: the HTTP seam under the Slurm client.
//
// One call is one HTTP exchange with slurmrestd. The seam exists so that the client's
// classification (outcome.h) can be tested against every fault a real server cannot be made
// to show, and so that no curl type leaks above src/slurm/curl_transport.*.
//
// The answer never throws and is never a Result: every exchange ends in one of three
// deliveries, and the difference between "provably nothing left" and "something may have
// left" is the fact the submit protocol depends on:
//   - not_sent:   no byte of the request reached the wire (DNS, connect refused, connect
//                 timeout, TLS handshake failure); a submit may be retried.
//   - uncertain: the request may have reached the server but no complete answer came back
//                 (timeouts after the request went out, resets, empty replies, truncated bodies).
//   - answered:   a complete HTTP response (status, headers, body).
//
// `Reuse::forbidden` asks for a fresh connection that is closed afterwards: submits use it so
// that the transport can never re-send a POST on a reused connection that answered nothing.
// Implementations must be safe to call from several threads at once.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tpslurm::slurm {

enum class HttpMethod { get, post, del };
std::string_view to_string(HttpMethod method);  // "GET", "POST", "DELETE"

enum class Reuse { allowed, forbidden };

// Takes an answer's body as it arrives, so that a body of hundreds of megabytes (a listing of
// every job) is never held whole. take() gets every byte in order, in pieces of any size, on
// the thread that called perform(); it never throws: a reader that cannot use the bytes keeps
// its own error and ignores the rest.
class BodyReader {
 public:
  virtual ~BodyReader() = default;
  virtual void take(std::string_view piece) = 0;
};

// What a response keeps of a body its request's reader took: enough for an error message or
// a small error answer read whole, never the listing itself.
inline constexpr std::size_t kKeptBodyBytes = std::size_t{64} << 10;

struct HttpRequest {
  HttpMethod method = HttpMethod::get;
  std::string target;  // path and query: "/slurm/v0.0.45/job/12"
  std::string body;    // sent as application/json when non-empty or when method is post
  // Extra headers. Values may be secrets (the JWT): a transport never logs or echoes them.
  std::vector<std::pair<std::string, std::string>> headers;
  Reuse reuse = Reuse::allowed;
  // The whole exchange's limit for this request; empty: the transport's own total timeout.
  // A listing of every job takes time in proportion to the jobs (docs/slurm.md, *What a poll costs*: 1.28 s per
  // 2,000 on 26.05), so its caller gives it more than an ordinary call.
  std::optional<std::chrono::milliseconds> timeout;
  // When set, the transport may hand the answer's body to it as it arrives (HttpResponse::
  // streamed); one that does not leaves the whole body in the response instead.
  BodyReader* reader = nullptr;
};

enum class Delivery { not_sent, uncertain, answered };
std::string_view to_string(Delivery delivery);

// Why an exchange did not end in a complete answer; `none` when it did.
enum class TransportFault {
  none,
  dns,              // the host name did not resolve
  connect_refused,  // nothing listens there (or the unix socket is missing)
  connect_timeout,  // the connection was not established in time
  tls_handshake,    // TLS failed before the request was sent
  send_timeout,     // timed out after the request (or part of it) went out
  reset,            // the peer reset the connection
  empty_reply,      // the connection closed with no answer
  truncated,        // the answer stopped before its declared end
  too_large,        // the answer exceeded the configured limit
  other,            // anything else libcurl reports
};
std::string_view to_string(TransportFault fault);

struct HttpResponse {
  int status = 0;
  std::string content_type;
  // The whole body; when `streamed`, only its first kKeptBodyBytes (the reader took it all).
  std::string body;
  bool streamed = false;
  std::size_t streamed_bytes = 0;  // the whole body's length when streamed

  std::size_t body_size() const { return streamed ? streamed_bytes : body.size(); }
};

struct HttpExchange {
  Delivery delivery = Delivery::not_sent;
  TransportFault fault = TransportFault::none;
  HttpResponse response;  // meaningful when delivery == answered
  // What went wrong in the transport's own words (no secrets); empty when answered.
  std::string detail;
  bool connection_reused = false;
  std::chrono::microseconds elapsed{0};
};

// Why `value` cannot be sent as an HTTP header value, or nothing when it can: only visible
// ASCII, space and tab are allowed (RFC 9110 field-value without obs-text), so CR, LF, NUL,
// other control bytes and non-ASCII bytes are refused. The text names the byte's position,
// never the value (it may be a secret).
std::optional<std::string> header_value_problem(std::string_view value);

class Transport {
 public:
  virtual ~Transport() = default;
  virtual HttpExchange perform(const HttpRequest& request) = 0;
  // Where requests go, for messages: "http://127.0.0.1:6820" or "unix:/run/slurmrestd.sock".
  virtual std::string endpoint() const = 0;
};

}  // namespace tpslurm::slurm
