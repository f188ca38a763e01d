// ProxyStats: what the proxy has done since it started, as GET /proxy/stats reports it.
//
// `requests` counts requests received on the proxied listener; `forwarded` counts requests
// sent upstream (a resend sends one request twice); `answers_lost` counts answers the
// upstream gave that a lose_answer rule kept from the client; `resent`, `delayed` and
// `replaced` count the resend, delay and error_status rules applied; `upstream_failures`
// counts upstream exchanges that ended without a complete answer. `by_route` counts
// requests by "METHOD path" (the path as received, without its query).
// Value type; not thread-safe (the proxy uses it from its one I/O thread).
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace tpslurm::fault_proxy {

struct ProxyStats {
  std::int64_t requests = 0;
  std::int64_t forwarded = 0;
  std::int64_t answers_lost = 0;
  std::int64_t resent = 0;
  std::int64_t delayed = 0;
  std::int64_t replaced = 0;
  std::int64_t upstream_failures = 0;
  std::map<std::string, std::int64_t> by_route;
};

}  // namespace tpslurm::fault_proxy
