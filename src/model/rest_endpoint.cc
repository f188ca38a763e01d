#include "model/rest_endpoint.h"

#include <boost/url/ipv4_address.hpp>
#include <boost/url/ipv6_address.hpp>
#include <boost/url/parse.hpp>

namespace tpslurm::model {
namespace {

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// The host of an absolute URL, empty when it does not parse; `loopback` tells whether it is one.
std::optional<std::string> remote_host_of(std::string_view url) {
  auto parsed = boost::urls::parse_absolute_uri(url);
  if (!parsed || parsed->host().empty()) return std::string(url);
  switch (parsed->host_type()) {
    case boost::urls::host_type::ipv4:
      if (parsed->host_ipv4_address().is_loopback()) return std::nullopt;
      break;
    case boost::urls::host_type::ipv6:
      if (parsed->host_ipv6_address().is_loopback()) return std::nullopt;
      break;
    case boost::urls::host_type::name:
      if (is_loopback_host(parsed->host())) return std::nullopt;
      break;
    default:
      break;
  }
  return std::string(parsed->host());
}

}  // namespace

bool is_loopback_host(std::string_view host) {
  if (iequals(host, "localhost")) return true;
  if (host == "[::1]" || host == "::1") return true;
  auto v4 = boost::urls::parse_ipv4_address(host);
  return v4 && v4->is_loopback();
}

std::optional<std::string> cleartext_token_host(std::string_view rest_url, std::string_view proxy) {
  if (rest_url.substr(0, 5) == "unix:" || rest_url.substr(0, 8) == "https://") return std::nullopt;
  if (auto host = remote_host_of(rest_url)) return host;
  if (!proxy.empty()) return remote_host_of(proxy);
  return std::nullopt;
}

}  // namespace tpslurm::model
