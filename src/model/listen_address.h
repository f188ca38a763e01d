// Where the platform API listens (TUNEPLANE_API_LISTEN): `HOST:PORT` with an IPv4 address,
// `[IPv6]:PORT`, or `unix:/absolute/path` for a unix socket. Host names are not accepted: the
// address is bound as written, never resolved. Port 0 asks the system for a free port (tests).
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tpslurm::model {

struct ListenAddress {
  std::string unix_path;  // set for unix:/path; then host and port are unused
  std::string host;       // an IPv4 or IPv6 literal, without brackets
  std::uint16_t port = 0;

  bool is_unix() const { return !unix_path.empty(); }
};

// The address, or "what is expected" for the settings loader's message.
std::optional<ListenAddress> parse_listen_address(std::string_view text, std::string* expected = nullptr);

}  // namespace tpslurm::model
