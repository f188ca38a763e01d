#include "slurm/metered_transport.h"

#include <array>
#include <vector>

namespace tpslurm::slurm {
namespace {

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> segments;
  while (!path.empty()) {
    const std::size_t slash = path.find('/');
    segments.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return segments;
}

// "v0.0.45": a 'v' and dotted digits.
bool is_version(std::string_view segment) {
  if (segment.size() < 2 || segment[0] != 'v') return false;
  for (char c : segment.substr(1)) {
    if ((c < '0' || c > '9') && c != '.') return false;
  }
  return true;
}

constexpr std::array<std::string_view, 7> kSlurmTemplates{"job/submit", "job/{id}", "jobs",      "jobs/state",
                                                          "ping",       "diag",     "partitions"};
constexpr std::array<std::string_view, 4> kSlurmdbTemplates{"jobs", "job/{id}", "diag", "ping"};

template <std::size_t N>
bool known(const std::array<std::string_view, N>& templates, std::string_view candidate) {
  for (std::string_view known_template : templates) {
    if (known_template == candidate) return true;
  }
  return false;
}

}  // namespace

std::string endpoint_label(std::string_view target) {
  target = target.substr(0, target.find_first_of("?#"));
  if (target.empty() || target.front() != '/') return "other";
  const auto segments = split_path(target.substr(1));
  if (segments.size() < 3 || !is_version(segments[1])) return "other";
  const std::string_view root = segments[0];
  std::string rest;
  if (segments.size() == 4 && segments[2] == "job" && segments[3] != "submit" && !segments[3].empty()) {
    rest = "job/{id}";
  } else {
    for (std::size_t i = 2; i < segments.size(); ++i) {
      rest += (i == 2 ? "" : "/") + std::string(segments[i]);
    }
  }
  if (root == "slurm" && known(kSlurmTemplates, rest)) return rest;
  if (root == "slurmdb" && known(kSlurmdbTemplates, rest)) return "slurmdb/" + rest;
  return "other";
}

std::string_view error_label(const HttpExchange& exchange) {
  if (exchange.delivery == Delivery::not_sent) return "not_sent";
  if (exchange.delivery == Delivery::uncertain) return "uncertain";
  if (exchange.response.status >= 500) return "http_5xx";
  if (exchange.response.status >= 400) return "http_4xx";
  return {};
}

HttpExchange MeteredTransport::perform(const HttpRequest& request) {
  HttpExchange exchange = m_inner.perform(request);
  const std::string endpoint = endpoint_label(request.target);
  metrics::RestCall call;
  call.endpoint = endpoint;
  call.method = to_string(request.method);
  call.bytes_sent = exchange.delivery == Delivery::not_sent ? 0 : request.body.size();
  call.bytes_received = exchange.delivery == Delivery::answered ? exchange.response.body_size() : 0;
  call.error = error_label(exchange);
  call.elapsed = exchange.elapsed;
  m_metrics.count_rest_call(call);
  return exchange;
}

}  // namespace tpslurm::slurm
