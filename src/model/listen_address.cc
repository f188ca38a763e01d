#include "model/listen_address.h"

#include <arpa/inet.h>

#include <charconv>

namespace tpslurm::model {
namespace {

constexpr std::string_view kExpected =
    "expected IPV4:PORT (e.g. 127.0.0.1:8740), [IPV6]:PORT or unix:/PATH/TO/SOCKET, with a port from 0 to 65535";

bool is_ip_literal(const std::string& host, bool v6) {
  unsigned char buffer[16];
  return ::inet_pton(v6 ? AF_INET6 : AF_INET, host.c_str(), buffer) == 1;
}

}  // namespace

std::optional<ListenAddress> parse_listen_address(std::string_view text, std::string* expected) {
  auto refuse = [&]() -> std::optional<ListenAddress> {
    if (expected) *expected = std::string(kExpected);
    return std::nullopt;
  };
  ListenAddress address;
  if (text.starts_with("unix:")) {
    const std::string_view path = text.substr(5);
    // sun_path holds 108 bytes with the terminating NUL.
    if (path.size() < 2 || path.front() != '/' || path.back() == '/' || path.size() > 107) return refuse();
    address.unix_path = std::string(path);
    return address;
  }
  const std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon + 1 >= text.size()) return refuse();
  std::string_view host = text.substr(0, colon);
  const bool v6 = host.starts_with('[');
  if (v6) {
    if (host.size() < 3 || !host.ends_with(']')) return refuse();
    host = host.substr(1, host.size() - 2);
  }
  address.host = std::string(host);
  if (!is_ip_literal(address.host, v6)) return refuse();
  const std::string_view port = text.substr(colon + 1);
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc() || end != port.data() + port.size() || value > 65535) return refuse();
  address.port = static_cast<std::uint16_t>(value);
  return address;
}

}  // namespace tpslurm::model
