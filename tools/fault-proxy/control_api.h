// The proxy's control API: JSON over HTTP on the control listener, no authentication.
//
//   POST   /proxy/faults  {"kind": K, "method": "POST", "path_suffix": "/job/submit", "count": 1,
//                          "ms": N (delay), "status": S (error_status), "relay": "first"|"second" (resend)}
//                         -> 200 {"id": N}
//   GET    /proxy/faults  -> 200 {"faults": [{"id", "kind", "method", "path_suffix", "remaining", "hits", ...}]}
//   DELETE /proxy/faults  -> 200 {"cleared": N}
//   GET    /proxy/stats   -> 200 {"requests", "forwarded", "answers_lost", "resent", "delayed", "replaced",
//                                 "upstream_failures", "by_route": {"POST /slurm/v0.0.45/job/submit": 2}}
//
// Bad input is 400 {"error": "..."} naming the field and what it must be; an unknown route
// is 404 and a known path with the wrong method 405, both with {"error": "..."}.
// A plain function over the table and the counters; as thread-safe as they are (not).
#pragma once

#include <string>
#include <string_view>

#include "fault_rules.h"
#include "proxy_stats.h"

namespace tpslurm::fault_proxy {

struct ControlReply {
  int status = 200;
  std::string body;  // JSON
};

ControlReply handle_control(std::string_view method, std::string_view target, std::string_view body, FaultTable& faults,
                            const ProxyStats& stats);

}  // namespace tpslurm::fault_proxy
