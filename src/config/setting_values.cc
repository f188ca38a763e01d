#include "config/setting_values.h"

#include <algorithm>
#include <boost/url/parse.hpp>
#include <cctype>

#include "base/duration.h"
#include "model/names.h"
#include "model/runtime_path.h"

namespace tpslurm::config::setting_values {

std::optional<std::string> absolute_path(const std::string& value, std::string& target) {
  if (value.empty() || value.front() != '/') return "expected an absolute path";
  target = value;
  while (target.size() > 1 && target.back() == '/') target.pop_back();
  return std::nullopt;
}

std::optional<std::string> runtime_root(const std::string& value, std::string& target) {
  if (auto why = absolute_path(value, target)) return why;
  return model::runtime_path_problem(target, model::PathKind::host);
}

std::optional<std::string> job_path(const std::string& value, std::string& target) {
  const std::string expected =
      "expected absolute directories joined by ':' (letters, digits, . _ + - / only), e.g. "
      "/opt/slurm/bin:/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= value.size()) {
    const std::size_t end = std::min(value.find(':', start), value.size());
    const std::string_view entry(value.data() + start, end - start);
    if (entry.empty() || entry.front() != '/' || entry.find("..") != std::string_view::npos) return expected;
    for (char c : entry) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '+' && c != '-' && c != '/') {
        return expected;
      }
    }
    start = end + 1;
  }
  target = value;
  return std::nullopt;
}

std::optional<std::string> slurm_name(const std::string& value, std::string& target) {
  if (auto why = model::slurm_name_problem(value)) return "expected a value that " + *why;
  target = value;
  return std::nullopt;
}

std::optional<std::string> duration_between(const std::string& value, std::chrono::seconds& target,
                                            std::chrono::seconds min, std::chrono::seconds max) {
  auto parsed = parse_duration(value);
  if (!parsed.ok()) return parsed.error().message();
  if (*parsed < min || *parsed > max) {
    return "expected a duration from " + format_duration(min) + " to " + format_duration(max);
  }
  target = *parsed;
  return std::nullopt;
}

std::optional<std::string> duration_between(const std::string& value, std::chrono::milliseconds& target,
                                            std::chrono::seconds min, std::chrono::seconds max) {
  std::chrono::seconds parsed{};
  if (auto why = duration_between(value, parsed, min, max)) return why;
  target = parsed;
  return std::nullopt;
}

std::optional<std::string> rest_url(const std::string& value, std::string& target) {
  static const char* const kExpected = "expected http://HOST:PORT, https://HOST:PORT or unix:/PATH/TO/SOCKET";
  if (value.starts_with("unix:")) {
    if (value.size() < 7 || value[5] != '/') return kExpected;
    target = value;
    return std::nullopt;
  }
  auto url = boost::urls::parse_absolute_uri(value);
  if (!url || (url->scheme() != "http" && url->scheme() != "https") || url->host().empty() || url->has_query() ||
      url->has_userinfo()) {
    return kExpected;
  }
  target = value;
  while (!target.empty() && target.back() == '/') target.pop_back();
  return std::nullopt;
}

std::optional<std::string> flag(const std::string& value, bool& target) {
  if (value == "1" || value == "true" || value == "yes") {
    target = true;
  } else if (value == "0" || value == "false" || value == "no") {
    target = false;
  } else {
    return "expected 1 or 0";
  }
  return std::nullopt;
}

std::optional<std::string> proxy_url(const std::string& value, std::string& target) {
  target.clear();
  if (value.empty()) return std::nullopt;
  auto url = boost::urls::parse_absolute_uri(value);
  static constexpr std::string_view kSchemes[] = {"http", "https", "socks4", "socks4a", "socks5", "socks5h"};
  const bool known = url && std::find(std::begin(kSchemes), std::end(kSchemes), url->scheme()) != std::end(kSchemes);
  if (!known || url->host().empty() || url->has_userinfo() || url->has_query()) {
    return "expected empty (no proxy) or SCHEME://HOST:PORT with SCHEME http, https, socks4, socks4a, socks5 or "
           "socks5h, without user or password";
  }
  target = value;
  return std::nullopt;
}

}  // namespace tpslurm::config::setting_values
