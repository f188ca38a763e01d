// The control endpoints of the simulator itself: health, the clock, timing and stats.
#include <boost/json/object.hpp>

#include "control_body.h"
#include "control_routes.h"
#include "control_views.h"
#include "release.h"

namespace tpslurm::sim::control {

namespace json = boost::json;

HttpReply health(const ControlCall& call) {
  return json_out(200, json::object{{"ok", true},
                                    {"release", std::string(release_name(call.sim.options.release))},
                                    {"port", call.sim.port},
                                    {"control_port", call.sim.control_port},
                                    {"auth", !call.sim.options.no_auth},
                                    {"accounting", call.sim.options.cluster.accounting}});
}

HttpReply clock_get(const ControlCall& call) {
  return json_out(200, json::object{{"now_ms", call.sim.clock.now_ms()}, {"now", call.sim.clock.now_s()},
                                    {"manual", call.sim.clock.manual()}});
}

HttpReply clock_advance(const ControlCall& call) {
  if (!call.sim.clock.manual()) return fail(409, "the clock follows real time; start with --manual-clock to move it");
  std::string error;
  std::optional<std::int64_t> ms;
  std::optional<std::int64_t> seconds;
  if (!get_int(call.body, "ms", ms, error) || !get_int(call.body, "seconds", seconds, error)) return fail(400, error);
  std::int64_t delta = ms.value_or(0) + seconds.value_or(0) * 1000;
  if (delta < 0) return fail(400, "\"ms\"/\"seconds\" must not be negative: the clock never goes back");
  call.sim.clock.advance_ms(delta);
  call.sim.store.tick();
  return json_out(200, json::object{{"now_ms", call.sim.clock.now_ms()}, {"now", call.sim.clock.now_s()}});
}

HttpReply clock_set(const ControlCall& call) {
  if (!call.sim.clock.manual()) return fail(409, "the clock follows real time; start with --manual-clock to set it");
  std::string error;
  std::optional<std::int64_t> unix_ms;
  std::optional<std::int64_t> unix_s;
  if (!get_int(call.body, "unix_ms", unix_ms, error) || !get_int(call.body, "unix", unix_s, error)) {
    return fail(400, error);
  }
  if (!unix_ms && !unix_s) return fail(400, "give \"unix\" (seconds) or \"unix_ms\"");
  std::int64_t target_ms = unix_ms ? *unix_ms : *unix_s * 1000;
  if (!call.sim.clock.set_ms(target_ms)) {
    return fail(400, "the clock never goes back; now_ms is " + std::to_string(call.sim.clock.now_ms()));
  }
  call.sim.store.tick();
  return json_out(200, json::object{{"now_ms", call.sim.clock.now_ms()}, {"now", call.sim.clock.now_s()}});
}

HttpReply timing_get(const ControlCall& call) {
  return json_out(200, timing_json(call.sim.store.timing(), call.sim.store.min_job_age()));
}

HttpReply timing_set(const ControlCall& call) {
  Timing t = call.sim.store.timing();
  std::string error;
  std::optional<std::string> mode;
  std::optional<std::int64_t> pending;
  std::optional<std::int64_t> running;
  std::optional<std::int64_t> completing;
  std::optional<std::int64_t> min_age;
  if (!get_string(call.body, "mode", mode, error) || !get_duration(call.body, "pending", pending, error) ||
      !get_duration(call.body, "running", running, error) ||
      !get_duration(call.body, "completing", completing, error) ||
      !get_int(call.body, "min_job_age_s", min_age, error)) {
    return fail(400, error);
  }
  if (mode && *mode != "auto" && *mode != "manual") return fail(400, "\"mode\" must be \"auto\" or \"manual\"");
  if (mode) t.automatic = *mode == "auto";
  if (pending) t.pending_ms = *pending;
  if (running) t.running_ms = *running;
  if (completing) t.completing_ms = *completing;
  if (min_age && *min_age < 0) return fail(400, "\"min_job_age_s\" must not be negative");
  call.sim.store.set_timing(t);
  if (min_age) call.sim.store.set_min_job_age(*min_age);
  call.sim.options.timing = t;
  return json_out(200, timing_json(t, call.sim.store.min_job_age()));
}

HttpReply stats_get(const ControlCall& call) {
  const Stats& stats = call.sim.stats;
  json::object routes;
  for (const auto& [k, v] : stats.requests_by_route) routes[k] = v;
  json::object faults;
  for (const auto& [k, v] : stats.faults_by_kind) faults[k] = v;
  return json_out(200, json::object{{"requests", stats.requests},
                                    {"requests_by_route", std::move(routes)},
                                    {"bytes_in", stats.bytes_in},
                                    {"bytes_out", stats.bytes_out},
                                    {"connections", stats.connections},
                                    {"submits_received", stats.submits_received},
                                    {"updates_received", stats.updates_received},
                                    {"jobs_created", stats.jobs_created},
                                    {"auth_failures", stats.auth_failures},
                                    {"faults_injected", std::move(faults)},
                                    {"jobs_in_controller", call.sim.store.controller_jobs().size()},
                                    {"jobs_in_accounting", call.sim.store.accounting().size()},
                                    {"scheduled_events", call.sim.store.pending_events()},
                                    {"last_job_update", call.sim.store.last_job_update()}});
}

HttpReply stats_reset(const ControlCall& call) {
  call.sim.stats.reset();
  return json_out(200, json::object{{"reset", true}});
}

}  // namespace tpslurm::sim::control
