// Addresses on the proxy's command line: where to listen ("127.0.0.1:0") and where the
// upstream server is ("http://127.0.0.1:6820").
//
// Only plain HTTP upstreams without a path are accepted: the proxy forwards each request's
// target unchanged, so a path prefix or TLS would silently change what the upstream sees.
// Errors are invalid_argument and name the option's value and the expected form.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace tpslurm::fault_proxy {

struct HostPort {
  std::string host;
  std::uint16_t port = 0;

  std::string text() const { return host + ":" + std::to_string(port); }
};

// "HOST:PORT"; port 0 asks for a free one.
Result<HostPort> parse_listen(std::string_view text);
// "http://HOST[:PORT][/]"; the port defaults to 80.
Result<HostPort> parse_upstream(std::string_view url);

}  // namespace tpslurm::fault_proxy
