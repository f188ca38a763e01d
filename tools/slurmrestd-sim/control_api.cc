#include "control_api.h"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <cctype>
#include <optional>

#include "auth.h"
#include "sluid.h"

namespace tpslurm::sim {

namespace json = boost::json;

namespace {

HttpReply json_out(int status, const json::value& value) {
  HttpReply reply;
  reply.status = status;
  reply.body = json::serialize(value);
  return reply;
}

HttpReply fail(int status, std::string message) { return json_out(status, json::object{{"error", message}}); }

bool digits(const std::string& s) {
  return !s.empty() && s.size() <= 10 &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

// Reads an optional integer member; false (with `error`) if present but not an integer.
bool get_int(const json::object& obj, const char* key, std::optional<std::int64_t>& out, std::string& error) {
  const json::value* v = obj.if_contains(key);
  if (!v) return true;
  if (v->is_int64()) {
    out = v->get_int64();
  } else if (v->is_uint64()) {
    out = static_cast<std::int64_t>(v->get_uint64());
  } else if (v->is_double() && v->get_double() == static_cast<double>(static_cast<std::int64_t>(v->get_double()))) {
    out = static_cast<std::int64_t>(v->get_double());
  } else {
    error = std::string("\"") + key + "\" must be an integer";
    return false;
  }
  return true;
}

bool get_string(const json::object& obj, const char* key, std::optional<std::string>& out, std::string& error) {
  const json::value* v = obj.if_contains(key);
  if (!v) return true;
  if (!v->is_string()) {
    error = std::string("\"") + key + "\" must be a string";
    return false;
  }
  out = std::string(v->get_string());
  return true;
}

bool get_bool(const json::object& obj, const char* key, std::optional<bool>& out, std::string& error) {
  const json::value* v = obj.if_contains(key);
  if (!v) return true;
  if (!v->is_bool()) {
    error = std::string("\"") + key + "\" must be true or false";
    return false;
  }
  out = v->get_bool();
  return true;
}

// Milliseconds from "<key>_ms" (integer) or "<key>" (integer ms, or "2s"/"inf" text).
bool get_duration(const json::object& obj, const std::string& key, std::optional<std::int64_t>& out,
                  std::string& error) {
  if (!get_int(obj, (key + "_ms").c_str(), out, error)) return false;
  const json::value* v = obj.if_contains(key);
  if (!v) return true;
  if (v->is_string()) {
    auto ms = parse_millis(v->get_string());
    if (!ms) {
      error = "\"" + key + "\": " + ms.error().message();
      return false;
    }
    out = *ms;
    return true;
  }
  return get_int(obj, key.c_str(), out, error);
}

json::array flag_names(std::uint32_t flags) {
  json::array out;
  auto names = state_array(BaseState::pending, flags);
  for (std::size_t i = 1; i < names.size(); ++i) out.emplace_back(std::string(names[i]));
  return out;
}

json::object job_summary(const JobRecord& job) {
  json::object o;
  o["job_id"] = job.job_id;
  o["het_job_id"] = job.het_job_id;
  o["het_job_offset"] = job.het_job_offset;
  o["het_size"] = job.het_size;
  o["sluid"] = format_sluid(job.sluid);
  o["original_sluid"] = format_sluid(job.original_sluid);
  o["state"] = std::string(base_state_name(job.state));
  o["flags"] = flag_names(job.flags);
  o["state_reason"] = job.state_reason;
  o["exit_status"] = job.exit_status;
  if ((job.exit_status & 0x7f) == 0) {
    o["exit_code"] = (job.exit_status >> 8) & 0xff;
    o["signal"] = 0;
  } else {
    o["exit_code"] = 0;
    o["signal"] = job.exit_status & 0x7f;
  }
  o["requeue"] = job.requeue;
  o["hold"] = job.hold;
  o["restart_cnt"] = job.restart_cnt;
  o["in_controller"] = job.in_controller;
  o["name"] = job.name;
  o["comment"] = job.comment;
  o["partition"] = job.partition;
  o["account"] = job.account;
  o["qos"] = job.qos;
  o["constraints"] = job.constraints;
  o["tres_per_node"] = job.tres_per_node;
  o["gpus_per_node"] = job.gpus;
  o["user"] = job.user_name;
  o["current_working_directory"] = job.cwd;
  o["standard_output"] = job.std_out;
  o["standard_error"] = job.std_err;
  json::array env;
  for (const auto& e : job.environment) env.emplace_back(e);
  o["environment"] = std::move(env);
  o["script"] = job.script;
  o["submitted_with"] = std::string(dialect_name(job.submitted_with));
  o["submit_time"] = job.submit_time;
  o["start_time"] = job.start_time;
  o["end_time"] = job.end_time;
  o["last_signal"] = job.last_signal;
  o["auto_progress"] = job.auto_progress;
  return o;
}

json::object timing_json(const Timing& t, std::int64_t min_job_age_s) {
  return json::object{{"mode", t.automatic ? "auto" : "manual"},
                      {"pending_ms", t.pending_ms},
                      {"running_ms", t.running_ms},
                      {"completing_ms", t.completing_ms},
                      {"min_job_age_s", min_job_age_s}};
}

json::object rule_json(const FaultRule& r, std::int64_t now_ms) {
  json::object o{{"id", r.id},
                 {"kind", std::string(fault_kind_name(r.kind))},
                 {"method", r.method},
                 {"path_prefix", r.path_prefix},
                 {"remaining", r.remaining},
                 {"hits", r.hits}};
  if (r.until_ms >= 0) o["seconds_left"] = static_cast<double>(r.until_ms - now_ms) / 1000.0;
  if (r.kind == FaultKind::delay || r.kind == FaultKind::slow_controller) o["ms"] = r.ms;
  if (r.kind == FaultKind::error_response || r.kind == FaultKind::accounting_outage) o["status"] = r.status;
  if (r.kind == FaultKind::outage) o["mode"] = r.refuse ? "refuse" : "close";
  return o;
}

}  // namespace

HttpReply ControlApi::handle(const HttpRequest& request, const Target& target) {
  const auto& seg = target.segments;  // seg[0] == "sim"
  const std::string& method = request.method;
  json::object body;
  if (!request.body.empty()) {
    boost::system::error_code ec;
    json::value parsed = json::parse(request.body, ec);
    if (ec || !parsed.is_object()) return fail(400, "request body must be a JSON object");
    body = parsed.get_object();
  }
  std::string error;
  m_store.tick();
  const std::size_t n = seg.size();
  auto is = [&](std::initializer_list<const char*> parts) {
    if (parts.size() != n - 1) return false;
    std::size_t i = 1;
    for (const char* p : parts) {
      if (seg[i] != p && std::string(p) != "*") return false;
      ++i;
    }
    return true;
  };

  if (method == "GET" && is({"health"})) {
    return json_out(200, json::object{{"ok", true},
                                      {"release", std::string(release_name(m_options.release))},
                                      {"port", m_port},
                                      {"control_port", m_control_port},
                                      {"auth", !m_options.no_auth},
                                      {"accounting", m_options.cluster.accounting}});
  }

  // ---- clock ------------------------------------------------------------------------
  if (is({"clock"}) && method == "GET") {
    return json_out(200, json::object{{"now_ms", m_clock.now_ms()}, {"now", m_clock.now_s()}, {"manual", m_clock.manual()}});
  }
  if (is({"clock", "advance"}) && method == "POST") {
    if (!m_clock.manual()) return fail(409, "the clock follows real time; start with --manual-clock to move it");
    std::optional<std::int64_t> ms;
    std::optional<std::int64_t> seconds;
    if (!get_int(body, "ms", ms, error) || !get_int(body, "seconds", seconds, error)) return fail(400, error);
    std::int64_t delta = ms.value_or(0) + seconds.value_or(0) * 1000;
    if (delta < 0) return fail(400, "\"ms\"/\"seconds\" must not be negative: the clock never goes back");
    m_clock.advance_ms(delta);
    m_store.tick();
    return json_out(200, json::object{{"now_ms", m_clock.now_ms()}, {"now", m_clock.now_s()}});
  }
  if (is({"clock", "set"}) && method == "POST") {
    if (!m_clock.manual()) return fail(409, "the clock follows real time; start with --manual-clock to set it");
    std::optional<std::int64_t> unix_ms;
    std::optional<std::int64_t> unix_s;
    if (!get_int(body, "unix_ms", unix_ms, error) || !get_int(body, "unix", unix_s, error)) return fail(400, error);
    if (!unix_ms && !unix_s) return fail(400, "give \"unix\" (seconds) or \"unix_ms\"");
    std::int64_t target_ms = unix_ms ? *unix_ms : *unix_s * 1000;
    if (!m_clock.set_ms(target_ms)) return fail(400, "the clock never goes back; now_ms is " + std::to_string(m_clock.now_ms()));
    m_store.tick();
    return json_out(200, json::object{{"now_ms", m_clock.now_ms()}, {"now", m_clock.now_s()}});
  }

  // ---- timing -----------------------------------------------------------------------
  if (is({"timing"}) && method == "GET") return json_out(200, timing_json(m_store.timing(), m_store.min_job_age()));
  if (is({"timing"}) && method == "POST") {
    Timing t = m_store.timing();
    std::optional<std::string> mode;
    std::optional<std::int64_t> pending;
    std::optional<std::int64_t> running;
    std::optional<std::int64_t> completing;
    std::optional<std::int64_t> min_age;
    if (!get_string(body, "mode", mode, error) || !get_duration(body, "pending", pending, error) ||
        !get_duration(body, "running", running, error) || !get_duration(body, "completing", completing, error) ||
        !get_int(body, "min_job_age_s", min_age, error)) {
      return fail(400, error);
    }
    if (mode && *mode != "auto" && *mode != "manual") return fail(400, "\"mode\" must be \"auto\" or \"manual\"");
    if (mode) t.automatic = *mode == "auto";
    if (pending) t.pending_ms = *pending;
    if (running) t.running_ms = *running;
    if (completing) t.completing_ms = *completing;
    if (min_age && *min_age < 0) return fail(400, "\"min_job_age_s\" must not be negative");
    m_store.set_timing(t);
    if (min_age) m_store.set_min_job_age(*min_age);
    m_options.timing = t;
    return json_out(200, timing_json(t, m_store.min_job_age()));
  }

  // ---- jobs -------------------------------------------------------------------------
  if (n >= 3 && seg[1] == "jobs" && digits(seg[2])) {
    const auto id = static_cast<std::uint32_t>(std::stoul(seg[2]));
    JobRecord* job = m_store.find(id);
    if (n == 3 && method == "GET") {
      if (job) return json_out(200, job_summary(*job));
      auto archived = m_store.accounting_by_id(id);
      if (archived.empty()) return fail(404, "job " + seg[2] + " was never submitted");
      return json_out(200, job_summary(*archived.back()));
    }
    if (!job) return fail(404, "job " + seg[2] + " is not in slurmctld (never submitted or already purged)");
    if (n == 4 && seg[3] == "state" && method == "POST") {
      StateChange change;
      std::optional<std::string> state;
      std::optional<std::int64_t> exit_code;
      std::optional<std::int64_t> signal;
      std::optional<bool> completing;
      std::optional<std::string> reason;
      std::optional<bool> component_only;
      if (!get_string(body, "state", state, error) || !get_int(body, "exit_code", exit_code, error) ||
          !get_bool(body, "completing", completing, error) || !get_string(body, "reason", reason, error) ||
          !get_bool(body, "component_only", component_only, error)) {
        return fail(400, error);
      }
      if (const json::value* s = body.if_contains("signal")) {
        if (s->is_string()) {
          int number = parse_signal(s->get_string());
          if (!number) return fail(400, "\"signal\": unknown signal \"" + std::string(s->get_string()) + "\"");
          signal = number;
        } else if (!get_int(body, "signal", signal, error)) {
          return fail(400, error);
        }
      }
      if (state) {
        auto parsed = parse_base_state(*state);
        if (!parsed) {
          return fail(400, "\"state\": unknown state \"" + *state +
                               "\"; use PENDING, RUNNING, SUSPENDED, COMPLETED, FAILED, CANCELLED, TIMEOUT, "
                               "NODE_FAIL, PREEMPTED, BOOT_FAIL, DEADLINE or OUT_OF_MEMORY");
        }
        change.state = *parsed;
      }
      if (exit_code) change.exit_code = static_cast<int>(*exit_code);
      if (signal) change.signal = static_cast<int>(*signal);
      change.completing = completing;
      change.reason = reason;
      if (!change.state && !change.completing && !change.reason) {
        return fail(400, "give \"state\", \"completing\" or \"reason\"");
      }
      std::vector<JobRecord*> targets =
          job->is_het_leader() && !component_only.value_or(false) ? m_store.het_group(*job) : std::vector<JobRecord*>{job};
      json::array changed;
      for (JobRecord* member : targets) {
        Status st = m_store.apply(*member, change);
        if (!st) return fail(409, st.error().message());
        changed.emplace_back(job_summary(*member));
      }
      return json_out(200, json::object{{"jobs", std::move(changed)}});
    }
    if (n == 4 && seg[3] == "requeue" && method == "POST") {
      std::optional<bool> force;
      if (!get_bool(body, "force", force, error)) return fail(400, error);
      Status st = m_store.requeue(*job, force.value_or(false));
      if (!st) return fail(409, st.error().message());
      return json_out(200, job_summary(*job));
    }
    return fail(404, "unknown control endpoint " + method + " " + target.path);
  }
  if (is({"jobs", "bulk"}) && method == "POST") {
    std::optional<std::int64_t> count;
    std::optional<std::string> state;
    std::optional<std::string> prefix;
    std::optional<std::string> partition;
    std::optional<std::string> user;
    std::optional<std::string> comment;
    std::optional<std::int64_t> het;
    std::optional<bool> requeue;
    std::optional<bool> auto_progress;
    std::optional<std::int64_t> exit_code;
    if (!get_int(body, "count", count, error) || !get_string(body, "state", state, error) ||
        !get_string(body, "name_prefix", prefix, error) || !get_string(body, "partition", partition, error) ||
        !get_string(body, "user", user, error) || !get_string(body, "comment", comment, error) ||
        !get_int(body, "het_components", het, error) || !get_bool(body, "requeue", requeue, error) ||
        !get_bool(body, "auto_progress", auto_progress, error) || !get_int(body, "exit_code", exit_code, error)) {
      return fail(400, error);
    }
    if (!count || *count < 1 || *count > 2'000'000) return fail(400, "\"count\" must be an integer from 1 to 2000000");
    if (het && (*het < 1 || *het > 8)) return fail(400, "\"het_components\" must be from 1 to 8");
    std::optional<BaseState> target_state = parse_base_state(state.value_or("PENDING"));
    if (!target_state) return fail(400, "\"state\": unknown state \"" + *state + "\"");
    const std::string part = partition.value_or(m_options.cluster.default_partition);
    if (!m_options.cluster.has_partition(part)) return fail(400, "\"partition\": no partition \"" + part + "\"");
    const std::string owner = user.value_or("root");
    std::uint32_t first = 0;
    std::uint32_t last = 0;
    StateChange change;
    if (*target_state != BaseState::pending) {
      change.state = *target_state;
      if (exit_code) change.exit_code = static_cast<int>(*exit_code);
    }
    for (std::int64_t i = 0; i < *count; ++i) {
      std::vector<JobRecord> components;
      for (std::int64_t k = 0; k < het.value_or(1); ++k) {
        JobRecord rec;
        rec.name = prefix.value_or("bulk-") + std::to_string(i);
        rec.comment = comment.value_or("");
        rec.partition = part;
        rec.user_name = owner;
        rec.user_id = uid_of(owner);
        rec.group_name = group_of(owner);
        rec.group_id = rec.user_id;
        rec.environment = {"PATH=/usr/bin:/bin"};
        rec.script = k == 0 ? "#!/bin/bash\ntrue\n" : "";
        rec.cwd = m_options.default_cwd;
        rec.requeue = requeue.value_or(false);
        rec.auto_progress = auto_progress.value_or(false);
        components.push_back(std::move(rec));
      }
      std::uint32_t id = m_store.submit(std::move(components));
      if (i == 0) first = id;
      last = id + static_cast<std::uint32_t>(het.value_or(1)) - 1;
      if (change.state) {
        JobRecord* job = m_store.find(id);
        for (JobRecord* member : m_store.het_group(*job)) {
          if (*change.state != BaseState::running && is_finished(*change.state)) {
            StateChange start;
            start.state = BaseState::running;
            (void)m_store.apply(*member, start);
          }
          Status st = m_store.apply(*member, change);
          if (!st) return fail(409, st.error().message());
        }
      }
    }
    m_stats.jobs_created += static_cast<std::uint64_t>(*count * het.value_or(1));
    return json_out(200, json::object{{"first_job_id", first}, {"last_job_id", last}, {"count", *count}});
  }
  if (is({"jobs", "advance"}) && method == "POST") {
    std::optional<std::int64_t> count;
    std::optional<std::string> from;
    std::optional<std::string> to;
    std::optional<std::int64_t> exit_code;
    if (!get_int(body, "count", count, error) || !get_string(body, "from", from, error) ||
        !get_string(body, "to", to, error) || !get_int(body, "exit_code", exit_code, error)) {
      return fail(400, error);
    }
    auto from_state = parse_base_state(from.value_or("PENDING"));
    auto to_state = parse_base_state(to.value_or("RUNNING"));
    if (!from_state || !to_state) return fail(400, "\"from\"/\"to\" must be Slurm base states such as PENDING or RUNNING");
    if (!count || *count < 0) return fail(400, "\"count\" must be a non-negative integer");
    std::vector<JobRecord*> picked;
    for (const auto& [id, job] : m_store.controller_jobs()) {
      if (static_cast<std::int64_t>(picked.size()) >= *count) break;
      if (job->state == *from_state && !(job->flags & state_flag::completing)) picked.push_back(job.get());
    }
    json::array changed;
    StateChange change;
    change.state = *to_state;
    if (exit_code) change.exit_code = static_cast<int>(*exit_code);
    for (JobRecord* job : picked) {
      if (*from_state == BaseState::pending && is_finished(*to_state) && *to_state != BaseState::cancelled) {
        StateChange start;
        start.state = BaseState::running;
        (void)m_store.apply(*job, start);
      }
      Status st = m_store.apply(*job, change);
      if (!st) return fail(409, st.error().message());
      changed.emplace_back(job->job_id);
    }
    return json_out(200, json::object{{"changed", std::move(changed)}});
  }
  if (is({"ids", "reset"}) && method == "POST") {
    std::optional<std::int64_t> next;
    std::optional<bool> forget;
    if (!get_int(body, "next_id", next, error) || !get_bool(body, "forget_jobs", forget, error)) return fail(400, error);
    if (next && (*next < 1 || *next > 0x03fffffe)) return fail(400, "\"next_id\" must be from 1 to 67108862");
    m_store.reset_ids(static_cast<std::uint32_t>(next.value_or(m_options.first_job_id)), forget.value_or(true));
    return json_out(200, json::object{{"next_job_id", m_store.next_job_id()}, {"jobs_in_controller", m_store.controller_jobs().size()}});
  }

  // ---- faults -----------------------------------------------------------------------
  if (is({"faults"}) && method == "GET") {
    json::array rules;
    for (const auto& r : m_faults.rules()) rules.emplace_back(rule_json(r, m_clock.now_ms()));
    json::object out{{"rules", std::move(rules)}};
    if (const auto& random = m_faults.random()) {
      json::array kinds;
      for (auto k : random->kinds) kinds.emplace_back(std::string(fault_kind_name(k)));
      out["random"] = json::object{{"seed", random->seed},
                                   {"probability", random->probability},
                                   {"kinds", std::move(kinds)},
                                   {"hits", random->hits}};
    }
    return json_out(200, out);
  }
  if (is({"faults"}) && method == "DELETE") {
    m_faults.clear();
    m_faults.clear_random();
    return json_out(200, json::object{{"cleared", true}});
  }
  if (n == 3 && seg[1] == "faults" && digits(seg[2]) && method == "DELETE") {
    if (!m_faults.remove(std::stoull(seg[2]))) return fail(404, "no fault rule " + seg[2]);
    return json_out(200, json::object{{"removed", std::stoull(seg[2])}});
  }
  if (is({"faults"}) && method == "POST") {
    std::optional<std::string> kind_name;
    std::optional<std::string> fault_method;
    std::optional<std::string> prefix;
    std::optional<std::int64_t> count;
    std::optional<std::int64_t> seconds;
    std::optional<std::int64_t> ms;
    std::optional<std::int64_t> status;
    std::optional<std::string> mode;
    if (!get_string(body, "kind", kind_name, error) || !get_string(body, "method", fault_method, error) ||
        !get_string(body, "path_prefix", prefix, error) || !get_int(body, "count", count, error) ||
        !get_int(body, "seconds", seconds, error) || !get_int(body, "ms", ms, error) ||
        !get_int(body, "status", status, error) || !get_string(body, "mode", mode, error)) {
      return fail(400, error);
    }
    if (!kind_name) return fail(400, "\"kind\" is required");
    auto kind = parse_fault_kind(*kind_name);
    if (!kind) {
      return fail(400, "\"kind\": unknown fault \"" + *kind_name +
                           "\"; use drop_response, error_response, close_after_response, delay, close_mid_body, "
                           "garbage, outage, slow_controller or accounting_outage");
    }
    FaultRule rule;
    rule.kind = *kind;
    rule.method = fault_method.value_or("");
    const bool window = !is_response_fault(*kind);
    rule.path_prefix = prefix.value_or(*kind == FaultKind::slow_controller     ? "/slurm/"
                                       : *kind == FaultKind::accounting_outage ? "/slurmdb/"
                                                                               : "");
    rule.remaining = count.value_or(window ? -1 : 1);
    if (rule.remaining == 0 || rule.remaining < -1) return fail(400, "\"count\" must be positive, or -1 for unlimited");
    if (seconds) {
      if (*seconds <= 0) return fail(400, "\"seconds\" must be positive");
      rule.until_ms = m_clock.now_ms() + *seconds * 1000;
    }
    if ((*kind == FaultKind::delay || *kind == FaultKind::slow_controller) && (!ms || *ms <= 0)) {
      return fail(400, "\"ms\" (a positive delay in milliseconds) is required for " + *kind_name);
    }
    rule.ms = ms.value_or(0);
    if (*kind == FaultKind::error_response) {
      rule.status = static_cast<int>(status.value_or(500));
      if (rule.status < 400 || rule.status > 599) return fail(400, "\"status\" must be an HTTP error status (500, 502, 504...)");
    } else if (*kind == FaultKind::accounting_outage) {
      rule.status = static_cast<int>(status.value_or(0));
    }
    if (*kind == FaultKind::outage) {
      std::string m = mode.value_or("close");
      if (m != "close" && m != "refuse") return fail(400, "\"mode\" must be \"close\" or \"refuse\"");
      rule.refuse = m == "refuse";
      if (rule.refuse && count && *count != -1) {
        return fail(400,
                    "\"count\" needs an outage in \"close\" mode: refused connections never reach the simulator; "
                    "end a refuse-mode outage with \"seconds\" or DELETE /sim/faults/{id}");
      }
      if (rule.refuse && rule.until_ms < 0 && m_control_port == 0) {
        return fail(400, "a refuse-mode outage without \"seconds\" needs --control-listen, or nothing could end it");
      }
    }
    std::uint64_t id = m_faults.add(rule);
    return json_out(200, json::object{{"id", id}});
  }
  if (is({"faults", "random"}) && method == "POST") {
    std::optional<std::int64_t> seed;
    std::optional<std::string> fault_method;
    std::optional<std::string> prefix;
    std::optional<std::int64_t> ms;
    std::optional<std::int64_t> status;
    if (!get_int(body, "seed", seed, error) || !get_string(body, "method", fault_method, error) ||
        !get_string(body, "path_prefix", prefix, error) || !get_int(body, "ms", ms, error) ||
        !get_int(body, "status", status, error)) {
      return fail(400, error);
    }
    RandomFaults random;
    random.seed = static_cast<std::uint64_t>(seed.value_or(0));
    const json::value* p = body.if_contains("probability");
    if (!p || !(p->is_double() || p->is_int64() || p->is_uint64())) return fail(400, "\"probability\" (0 to 1) is required");
    random.probability = p->is_double() ? p->get_double() : static_cast<double>(p->is_int64() ? p->get_int64() : static_cast<std::int64_t>(p->get_uint64()));
    if (random.probability < 0 || random.probability > 1) return fail(400, "\"probability\" must be from 0 to 1");
    const json::value* kinds = body.if_contains("kinds");
    if (!kinds || !kinds->is_array() || kinds->get_array().empty()) return fail(400, "\"kinds\" (a non-empty list) is required");
    for (const auto& k : kinds->get_array()) {
      auto kind = k.is_string() ? parse_fault_kind(k.get_string()) : std::nullopt;
      if (!kind || !is_response_fault(*kind)) {
        return fail(400, "\"kinds\": each must be one of drop_response, error_response, close_after_response, delay, "
                         "close_mid_body, garbage");
      }
      random.kinds.push_back(*kind);
    }
    random.method = fault_method.value_or("");
    random.path_prefix = prefix.value_or("/slurm");
    random.ms = ms.value_or(2000);
    random.status = static_cast<int>(status.value_or(500));
    m_faults.set_random(std::move(random));
    return json_out(200, json::object{{"random", true}});
  }
  if (is({"faults", "random"}) && method == "DELETE") {
    m_faults.clear_random();
    return json_out(200, json::object{{"random", false}});
  }

  // ---- stats ------------------------------------------------------------------------
  if (is({"stats"}) && method == "GET") {
    json::object routes;
    for (const auto& [k, v] : m_stats.requests_by_route) routes[k] = v;
    json::object faults;
    for (const auto& [k, v] : m_stats.faults_by_kind) faults[k] = v;
    return json_out(200, json::object{{"requests", m_stats.requests},
                                      {"requests_by_route", std::move(routes)},
                                      {"bytes_in", m_stats.bytes_in},
                                      {"bytes_out", m_stats.bytes_out},
                                      {"connections", m_stats.connections},
                                      {"submits_received", m_stats.submits_received},
                                      {"jobs_created", m_stats.jobs_created},
                                      {"auth_failures", m_stats.auth_failures},
                                      {"faults_injected", std::move(faults)},
                                      {"jobs_in_controller", m_store.controller_jobs().size()},
                                      {"jobs_in_accounting", m_store.accounting().size()},
                                      {"scheduled_events", m_store.pending_events()},
                                      {"last_job_update", m_store.last_job_update()}});
  }
  if (is({"stats", "reset"}) && method == "POST") {
    m_stats.reset();
    return json_out(200, json::object{{"reset", true}});
  }
  return fail(404, "unknown control endpoint " + method + " " + target.path + " (see tools/slurmrestd-sim/README.md)");
}

}  // namespace tpslurm::sim
