#include "control_api.h"

#include <algorithm>
#include <array>
#include <boost/json.hpp>
#include <cctype>
#include <optional>

#include "base/result.h"

namespace tpslurm::fault_proxy {
namespace json = boost::json;
namespace {

constexpr std::array<std::string_view, 7> kFields{"kind", "method", "path_suffix", "count", "ms", "status", "relay"};

ControlReply answer(const json::value& value) { return {200, json::serialize(value)}; }

ControlReply error_reply(int status, const std::string& message) {
  return {status, json::serialize(json::object{{"error", message}})};
}

// An integer member, or nothing when absent; an error names the field when it is not one.
Result<std::optional<std::int64_t>> integer_field(const json::object& body, std::string_view name) {
  const json::value* value = body.if_contains(name);
  if (value == nullptr) return std::optional<std::int64_t>{};
  if (value->is_int64()) return std::optional<std::int64_t>{value->as_int64()};
  if (value->is_uint64() && value->as_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) {
    return std::optional<std::int64_t>{static_cast<std::int64_t>(value->as_uint64())};
  }
  return invalid_argument(std::string(name) + ": expected an integer");
}

Result<std::string> string_field(const json::object& body, std::string_view name, std::string_view example) {
  const json::value* value = body.if_contains(name);
  if (value == nullptr) return std::string();
  if (!value->is_string())
    return invalid_argument(std::string(name) + ": expected a string such as " + std::string(example));
  return std::string(value->as_string());
}

// A field that only some kinds take must not come with another kind: it is a typo or a
// misunderstanding, and ignoring it would make the test do something else than it says.
Status only_for(const json::object& body, std::string_view name, FaultKind owner, FaultKind kind) {
  if (kind != owner && body.contains(name)) {
    return invalid_argument(std::string(name) + ": only for kind " + std::string(to_string(owner)));
  }
  return ok_status();
}

Result<FaultAction> parse_action(const json::object& body) {
  const json::value* kind_value = body.if_contains("kind");
  if (kind_value == nullptr) return invalid_argument("kind: required (lose_answer, resend, delay or error_status)");
  std::optional<FaultKind> kind;
  if (kind_value->is_string()) kind = parse_fault_kind(kind_value->as_string());
  if (!kind) return invalid_argument("kind: expected lose_answer, resend, delay or error_status");
  FaultAction action;
  action.kind = *kind;
  for (auto [name, owner] : {std::pair{"ms", FaultKind::delay}, std::pair{"status", FaultKind::error_status},
                             std::pair{"relay", FaultKind::resend}}) {
    if (auto st = only_for(body, name, owner, *kind); !st) return st.error();
  }
  if (*kind == FaultKind::delay) {
    auto ms = integer_field(body, "ms");
    if (!ms) return ms.error();
    if (!*ms || **ms < 0) return invalid_argument("ms: required for delay, a non-negative integer (milliseconds)");
    action.delay_ms = **ms;
  }
  if (*kind == FaultKind::error_status) {
    auto status = integer_field(body, "status");
    if (!status) return status.error();
    if (!*status || **status < 100 || **status > 599) {
      return invalid_argument("status: required for error_status, an HTTP status from 100 to 599");
    }
    action.status = static_cast<int>(**status);
  }
  if (*kind == FaultKind::resend) {
    auto relay = string_field(body, "relay", "\"first\"");
    if (!relay) return relay.error();
    if (body.contains("relay") && *relay != "first" && *relay != "second") {
      return invalid_argument("relay: expected \"first\" or \"second\"");
    }
    action.relay = *relay == "first" ? Relay::first : Relay::second;
  }
  return action;
}

Result<FaultRule> parse_rule(std::string_view text) {
  boost::system::error_code ec;
  json::value parsed = json::parse(text, ec);
  if (ec) return invalid_argument("body: not JSON (" + ec.message() + ")");
  if (!parsed.is_object()) return invalid_argument("body: expected a JSON object");
  const json::object& body = parsed.as_object();
  for (const auto& member : body) {
    if (std::find(kFields.begin(), kFields.end(), member.key()) == kFields.end()) {
      return invalid_argument("unknown field \"" + std::string(member.key()) +
                              "\"; the fields are kind, method, path_suffix, count, ms, status and relay");
    }
  }
  FaultRule rule;
  auto action = parse_action(body);
  if (!action) return action.error();
  rule.action = *action;
  auto method = string_field(body, "method", "\"POST\"");
  if (!method) return method.error();
  for (char c : *method) {
    if (!std::isalpha(static_cast<unsigned char>(c)))
      return invalid_argument("method: expected a method such as \"POST\"");
  }
  rule.method = *method;
  std::transform(rule.method.begin(), rule.method.end(), rule.method.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  auto suffix = string_field(body, "path_suffix", "\"/job/submit\"");
  if (!suffix) return suffix.error();
  rule.path_suffix = *suffix;
  auto count = integer_field(body, "count");
  if (!count) return count.error();
  if (*count && **count != -1 && **count < 1) {
    return invalid_argument("count: expected a positive integer, or -1 for unlimited");
  }
  rule.remaining = count->value_or(1);
  return rule;
}

json::object rule_json(const FaultRule& rule) {
  json::object out{{"id", rule.id},
                   {"kind", to_string(rule.action.kind)},
                   {"method", rule.method},
                   {"path_suffix", rule.path_suffix},
                   {"remaining", rule.remaining},
                   {"hits", rule.hits}};
  switch (rule.action.kind) {
    case FaultKind::delay: out["ms"] = rule.action.delay_ms; break;
    case FaultKind::error_status: out["status"] = rule.action.status; break;
    case FaultKind::resend: out["relay"] = rule.action.relay == Relay::first ? "first" : "second"; break;
    case FaultKind::lose_answer: break;
  }
  return out;
}

json::object stats_json(const ProxyStats& stats) {
  json::object routes;
  for (const auto& [route, count] : stats.by_route) routes[route] = count;
  return json::object{{"requests", stats.requests},
                      {"forwarded", stats.forwarded},
                      {"answers_lost", stats.answers_lost},
                      {"resent", stats.resent},
                      {"delayed", stats.delayed},
                      {"replaced", stats.replaced},
                      {"upstream_failures", stats.upstream_failures},
                      {"by_route", std::move(routes)}};
}

ControlReply faults_route(std::string_view method, std::string_view body, FaultTable& faults) {
  if (method == "POST") {
    auto rule = parse_rule(body);
    if (!rule) return error_reply(400, rule.error().message());
    return answer(json::object{{"id", faults.add(std::move(rule).value())}});
  }
  if (method == "GET") {
    json::array list;
    for (const auto& rule : faults.rules()) list.push_back(rule_json(rule));
    return answer(json::object{{"faults", std::move(list)}});
  }
  if (method == "DELETE") {
    const auto cleared = static_cast<std::int64_t>(faults.rules().size());
    faults.clear();
    return answer(json::object{{"cleared", cleared}});
  }
  return error_reply(405, std::string(method) + " /proxy/faults: use POST, GET or DELETE");
}

}  // namespace

ControlReply handle_control(std::string_view method, std::string_view target, std::string_view body, FaultTable& faults,
                            const ProxyStats& stats) {
  const std::string_view path = target.substr(0, target.find('?'));
  if (path == "/proxy/faults") return faults_route(method, body, faults);
  if (path == "/proxy/stats") {
    if (method != "GET") return error_reply(405, std::string(method) + " /proxy/stats: use GET");
    return answer(stats_json(stats));
  }
  return error_reply(404, "no control route " + std::string(method) + " " + std::string(path) +
                              "; the routes are /proxy/faults and /proxy/stats");
}

}  // namespace tpslurm::fault_proxy
