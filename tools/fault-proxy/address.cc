#include "address.h"

namespace tpslurm::fault_proxy {
namespace {

// A decimal port of at most five digits and at most 65535.
bool parse_port(std::string_view text, std::uint16_t& port) {
  if (text.empty() || text.size() > 5) return false;
  unsigned value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  if (value > 65535) return false;
  port = static_cast<std::uint16_t>(value);
  return true;
}

}  // namespace

Result<HostPort> parse_listen(std::string_view text) {
  const std::size_t colon = text.rfind(':');
  HostPort out;
  if (colon == std::string_view::npos || colon == 0 || !parse_port(text.substr(colon + 1), out.port)) {
    return invalid_argument("listen address \"" + std::string(text) + "\": expected HOST:PORT, e.g. 127.0.0.1:0");
  }
  out.host = std::string(text.substr(0, colon));
  return out;
}

Result<HostPort> parse_upstream(std::string_view url) {
  const std::string problem = "upstream \"" + std::string(url) + "\": ";
  constexpr std::string_view kScheme = "http://";
  if (url.substr(0, kScheme.size()) != kScheme) {
    return invalid_argument(problem + "expected http://HOST:PORT (only plain HTTP is proxied)");
  }
  std::string_view rest = url.substr(kScheme.size());
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  if (rest.find('/') != std::string_view::npos || rest.find('?') != std::string_view::npos) {
    return invalid_argument(problem + "a path is not supported; targets are forwarded unchanged");
  }
  HostPort out;
  out.port = 80;
  const std::size_t colon = rest.rfind(':');
  if (colon != std::string_view::npos && !parse_port(rest.substr(colon + 1), out.port)) {
    return invalid_argument(problem + "bad port");
  }
  out.host = std::string(rest.substr(0, colon));
  if (out.host.empty()) return invalid_argument(problem + "no host");
  return out;
}

}  // namespace tpslurm::fault_proxy
