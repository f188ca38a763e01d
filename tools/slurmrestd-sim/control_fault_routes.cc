// The control endpoints of fault injection: list, add and remove rules, and random faults.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <string>

#include "control_body.h"
#include "control_routes.h"
#include "control_views.h"

namespace tpslurm::sim::control {

namespace json = boost::json;

namespace {

// What POST /sim/faults reads from its body.
struct RuleRequest {
  std::optional<std::string> kind_name;
  std::optional<std::string> method;
  std::optional<std::string> prefix;
  std::optional<std::int64_t> count;
  std::optional<std::int64_t> seconds;
  std::optional<std::int64_t> ms;
  std::optional<std::int64_t> status;
  std::optional<std::string> mode;
};

bool read_rule(const json::object& body, RuleRequest& r, std::string& error) {
  return get_string(body, "kind", r.kind_name, error) && get_string(body, "method", r.method, error) &&
         get_string(body, "path_prefix", r.prefix, error) && get_int(body, "count", r.count, error) &&
         get_int(body, "seconds", r.seconds, error) && get_int(body, "ms", r.ms, error) &&
         get_int(body, "status", r.status, error) && get_string(body, "mode", r.mode, error);
}

// An outage's mode; a refusing outage must have a way to end (refused connections never
// reach the simulator to count down or to be deleted through the main port).
std::optional<std::string> set_outage_mode(const RuleRequest& r, FaultRule& rule, std::uint16_t control_port) {
  std::string m = r.mode.value_or("close");
  if (m != "close" && m != "refuse") return "\"mode\" must be \"close\" or \"refuse\"";
  rule.refuse = m == "refuse";
  if (rule.refuse && r.count && *r.count != -1) {
    return "\"count\" needs an outage in \"close\" mode: refused connections never reach the simulator; "
           "end a refuse-mode outage with \"seconds\" or DELETE /sim/faults/{id}";
  }
  if (rule.refuse && rule.until_ms < 0 && control_port == 0) {
    return "a refuse-mode outage without \"seconds\" needs --control-listen, or nothing could end it";
  }
  return std::nullopt;
}

// The rule POST /sim/faults describes, or the 400 message saying what is wrong with it.
std::optional<std::string> make_rule(const RuleRequest& r, const ControlCall& call, FaultRule& rule) {
  if (!r.kind_name) return "\"kind\" is required";
  auto kind = parse_fault_kind(*r.kind_name);
  if (!kind) {
    return "\"kind\": unknown fault \"" + *r.kind_name +
           "\"; use drop_response, error_response, close_after_response, delay, close_mid_body, "
           "garbage, outage, slow_controller, accounting_outage or accounting_lag";
  }
  rule.kind = *kind;
  rule.method = r.method.value_or("");
  const bool window = !is_response_fault(*kind);
  rule.path_prefix = r.prefix.value_or(*kind == FaultKind::slow_controller     ? "/slurm/"
                                       : *kind == FaultKind::accounting_outage ? "/slurmdb/"
                                                                               : "");
  rule.remaining = r.count.value_or(window ? -1 : 1);
  if (rule.remaining == 0 || rule.remaining < -1) return "\"count\" must be positive, or -1 for unlimited";
  if (r.seconds) {
    if (*r.seconds <= 0) return "\"seconds\" must be positive";
    rule.until_ms = call.sim.clock.now_ms() + *r.seconds * 1000;
  }
  rule.since_ms = call.sim.clock.now_ms();
  if ((*kind == FaultKind::delay || *kind == FaultKind::slow_controller) && (!r.ms || *r.ms <= 0)) {
    return "\"ms\" (a positive delay in milliseconds) is required for " + *r.kind_name;
  }
  rule.ms = r.ms.value_or(0);
  if (*kind == FaultKind::error_response) {
    rule.status = static_cast<int>(r.status.value_or(500));
    if (rule.status < 400 || rule.status > 599) return "\"status\" must be an HTTP error status (500, 502, 504...)";
  } else if (*kind == FaultKind::accounting_outage) {
    rule.status = static_cast<int>(r.status.value_or(0));
  }
  if (*kind == FaultKind::outage) return set_outage_mode(r, rule, call.sim.control_port);
  return std::nullopt;
}

// The probability and kinds of POST /sim/faults/random, or the 400 message.
std::optional<std::string> read_random_draw(const json::object& body, RandomFaults& random) {
  const json::value* p = body.if_contains("probability");
  if (!p || !(p->is_double() || p->is_int64() || p->is_uint64())) return "\"probability\" (0 to 1) is required";
  random.probability = p->is_double() ? p->get_double()
                                      : static_cast<double>(p->is_int64() ? p->get_int64()
                                                                          : static_cast<std::int64_t>(p->get_uint64()));
  if (random.probability < 0 || random.probability > 1) return "\"probability\" must be from 0 to 1";
  const json::value* kinds = body.if_contains("kinds");
  if (!kinds || !kinds->is_array() || kinds->get_array().empty()) return "\"kinds\" (a non-empty list) is required";
  for (const auto& k : kinds->get_array()) {
    auto kind = k.is_string() ? parse_fault_kind(k.get_string()) : std::nullopt;
    if (!kind || !is_response_fault(*kind)) {
      return "\"kinds\": each must be one of drop_response, error_response, close_after_response, delay, "
             "close_mid_body, garbage";
    }
    random.kinds.push_back(*kind);
  }
  return std::nullopt;
}

}  // namespace

HttpReply faults_get(const ControlCall& call) {
  json::array rules;
  for (const auto& r : call.sim.faults.rules()) rules.emplace_back(rule_json(r, call.sim.clock.now_ms()));
  json::object out{{"rules", std::move(rules)}};
  if (const auto& random = call.sim.faults.random()) {
    json::array kinds;
    for (auto k : random->kinds) kinds.emplace_back(std::string(fault_kind_name(k)));
    out["random"] = json::object{{"seed", random->seed},
                                 {"probability", random->probability},
                                 {"kinds", std::move(kinds)},
                                 {"hits", random->hits}};
  }
  return json_out(200, out);
}

HttpReply faults_clear(const ControlCall& call) {
  call.sim.faults.clear();
  call.sim.faults.clear_random();
  return json_out(200, json::object{{"cleared", true}});
}

HttpReply fault_remove(const ControlCall& call) {
  const std::string& id = call.target.segments[2];
  if (!call.sim.faults.remove(std::stoull(id))) return fail(404, "no fault rule " + id);
  return json_out(200, json::object{{"removed", std::stoull(id)}});
}

HttpReply fault_add(const ControlCall& call) {
  RuleRequest r;
  std::string error;
  if (!read_rule(call.body, r, error)) return fail(400, error);
  FaultRule rule;
  if (auto problem = make_rule(r, call, rule)) return fail(400, *problem);
  std::uint64_t id = call.sim.faults.add(rule);
  return json_out(200, json::object{{"id", id}});
}

HttpReply faults_random_set(const ControlCall& call) {
  std::string error;
  std::optional<std::int64_t> seed;
  std::optional<std::string> method;
  std::optional<std::string> prefix;
  std::optional<std::int64_t> ms;
  std::optional<std::int64_t> status;
  if (!get_int(call.body, "seed", seed, error) || !get_string(call.body, "method", method, error) ||
      !get_string(call.body, "path_prefix", prefix, error) || !get_int(call.body, "ms", ms, error) ||
      !get_int(call.body, "status", status, error)) {
    return fail(400, error);
  }
  RandomFaults random;
  random.seed = static_cast<std::uint64_t>(seed.value_or(0));
  if (auto problem = read_random_draw(call.body, random)) return fail(400, *problem);
  random.method = method.value_or("");
  random.path_prefix = prefix.value_or("/slurm");
  random.ms = ms.value_or(2000);
  random.status = static_cast<int>(status.value_or(500));
  call.sim.faults.set_random(std::move(random));
  return json_out(200, json::object{{"random", true}});
}

HttpReply faults_random_clear(const ControlCall& call) {
  call.sim.faults.clear_random();
  return json_out(200, json::object{{"random", false}});
}

}  // namespace tpslurm::sim::control
