// A proxied client connection: reads the client's requests one after the other, forwards
// each to the upstream on a connection of its own (call_upstream), applies the fault rule
// the request matches, and relays the answer.
//
// Relaying keeps the upstream's status line, headers (Content-Type, Content-Length,
// "Connection: Close") and body; the client's connection stays open only when both the
// request and the answer allow it. When the upstream cannot be reached the client gets a
// gateway's 502; when it was reached but gave no complete answer the client's connection is
// closed unanswered, as the upstream's was. Faults (fault_rules.h):
//   lose_answer   forward, read the whole answer, close the client's connection unanswered
//   resend        forward twice, one after the other, relay the second (or the first) answer
//   delay         relay the answer `delay_ms` late, on a timer (other connections go on)
//   error_status  forward, read the answer, answer `status` with a gateway's HTML page
// Header values (tokens) are never logged or echoed.
//
// The session lives as long as an operation of its own is pending; the ProxyContext must
// outlive every session (the proxy server owns both the context and the io_context).
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "fault_rules.h"
#include "proxy_stats.h"

namespace tpslurm::fault_proxy {

// What every session of one proxy shares; used from the proxy's one I/O thread only.
struct ProxyContext {
  std::vector<boost::asio::ip::tcp::endpoint> upstream;
  std::string upstream_url;  // for messages: "http://127.0.0.1:6820"
  std::chrono::milliseconds upstream_timeout{30000};
  FaultTable faults;
  ProxyStats stats;
};

void start_client_session(boost::asio::ip::tcp::socket socket, ProxyContext& context);

}  // namespace tpslurm::fault_proxy
