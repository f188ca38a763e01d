// call_upstream: one HTTP exchange with the upstream server, on a fresh connection of its own.
//
// Connects (trying each endpoint in turn), writes the request as given (method, target,
// headers in their order and spelling, body), reads the complete answer and closes the
// connection, all within `timeout`. The result tells a complete answer from the two ways
// of getting none: `not_connected` (no connection was made, so the upstream cannot have seen
// the request) and `no_answer` (connected: the request may have arrived and been acted on).
// Call it on the I/O thread of `executor`; `done` runs there exactly once, never inline.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace tpslurm::fault_proxy {

using Request = boost::beast::http::request<boost::beast::http::string_body>;
using Response = boost::beast::http::response<boost::beast::http::string_body>;

enum class UpstreamOutcome { answered, not_connected, no_answer };

struct UpstreamResult {
  UpstreamOutcome outcome = UpstreamOutcome::no_answer;
  Response response;   // meaningful when answered
  std::string detail;  // why there is no answer ("connect: Connection refused"); no header values
};

using UpstreamDone = std::function<void(UpstreamResult)>;

void call_upstream(boost::asio::any_io_executor executor, const std::vector<boost::asio::ip::tcp::endpoint>& upstream,
                   Request request, std::chrono::milliseconds timeout, UpstreamDone done);

}  // namespace tpslurm::fault_proxy
