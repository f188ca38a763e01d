// The control endpoints of one job, /sim/jobs/{id}[/...]: read it, change its state, requeue it.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <string>
#include <vector>

#include "control_body.h"
#include "control_routes.h"
#include "control_views.h"

namespace tpslurm::sim::control {

namespace json = boost::json;

namespace {

std::uint32_t job_id_of(const ControlCall& call) {
  return static_cast<std::uint32_t>(std::stoul(call.target.segments[2]));
}

HttpReply not_in_controller(const ControlCall& call) {
  return fail(404, "job " + call.target.segments[2] + " is not in slurmctld (never submitted or already purged)");
}

// The change POST /sim/jobs/{id}/state asks for; false (with `error`) on a bad body.
bool read_state_change(const json::object& body, StateChange& change, std::optional<bool>& component_only,
                       std::string& error) {
  std::optional<std::string> state;
  std::optional<std::int64_t> exit_code;
  std::optional<std::int64_t> signal;
  std::optional<bool> completing;
  std::optional<std::string> reason;
  std::optional<bool> update_db;
  std::optional<std::int64_t> expected_start;
  std::optional<bool> auto_progress;
  if (!get_bool(body, "update_db", update_db, error) || !get_int(body, "expected_start", expected_start, error) ||
      !get_bool(body, "auto_progress", auto_progress, error)) {
    return false;
  }
  if (!get_string(body, "state", state, error) || !get_int(body, "exit_code", exit_code, error) ||
      !get_bool(body, "completing", completing, error) || !get_string(body, "reason", reason, error) ||
      !get_bool(body, "component_only", component_only, error)) {
    return false;
  }
  if (const json::value* s = body.if_contains("signal")) {
    if (s->is_string()) {
      int number = parse_signal(s->get_string());
      if (!number) {
        error = "\"signal\": unknown signal \"" + std::string(s->get_string()) + "\"";
        return false;
      }
      signal = number;
    } else if (!get_int(body, "signal", signal, error)) {
      return false;
    }
  }
  if (state) {
    auto parsed = parse_base_state(*state);
    if (!parsed) {
      error = "\"state\": unknown state \"" + *state +
              "\"; use PENDING, RUNNING, SUSPENDED, COMPLETED, FAILED, CANCELLED, TIMEOUT, "
              "NODE_FAIL, PREEMPTED, BOOT_FAIL, DEADLINE or OUT_OF_MEMORY";
      return false;
    }
    change.state = *parsed;
  }
  if (exit_code) change.exit_code = static_cast<int>(*exit_code);
  if (signal) change.signal = static_cast<int>(*signal);
  change.completing = completing;
  change.reason = reason;
  change.update_db = update_db;
  change.expected_start = expected_start;
  change.auto_progress = auto_progress;
  if (!change.state && !change.completing && !change.reason && !change.update_db && !change.expected_start &&
      !change.auto_progress) {
    error = "give \"state\", \"completing\", \"reason\", \"expected_start\" or \"auto_progress\"";
    return false;
  }
  return true;
}

}  // namespace

HttpReply job_get(const ControlCall& call) {
  const std::uint32_t id = job_id_of(call);
  if (JobRecord* job = call.sim.store.find(id)) return json_out(200, job_summary(*job));
  auto archived = call.sim.store.accounting_by_id(id);
  if (archived.empty()) return fail(404, "job " + call.target.segments[2] + " was never submitted");
  return json_out(200, job_summary(*archived.back()));
}

// Applies the change in the body to `job` (to every component of a het leader unless the body
// says "component_only").
HttpReply change_job_state(const ControlCall& call, JobRecord* job) {
  StateChange change;
  std::optional<bool> component_only;
  std::string error;
  if (!read_state_change(call.body, change, component_only, error)) return fail(400, error);
  std::vector<JobRecord*> targets = job->is_het_leader() && !component_only.value_or(false)
                                        ? call.sim.store.het_group(*job)
                                        : std::vector<JobRecord*>{job};
  json::array changed;
  for (JobRecord* member : targets) {
    Status st = call.sim.store.apply(*member, change);
    if (!st) return fail(409, st.error().message());
    changed.emplace_back(job_summary(*member));
  }
  return json_out(200, json::object{{"jobs", std::move(changed)}});
}

HttpReply job_state(const ControlCall& call) {
  JobRecord* job = call.sim.store.find(job_id_of(call));
  if (!job) return not_in_controller(call);
  return change_job_state(call, job);
}

HttpReply job_task_state(const ControlCall& call) {
  const std::string& text = call.target.segments[2];
  const std::size_t underscore = text.find('_');
  const auto master = static_cast<std::uint32_t>(std::stoul(text.substr(0, underscore)));
  const auto task = static_cast<std::uint32_t>(std::stoul(text.substr(underscore + 1)));
  JobRecord* job = call.sim.store.array_task(master, task);
  if (!job) return fail(404, "array task " + text + " is not in slurmctld");
  HttpReply reply = change_job_state(call, job);
  call.sim.store.note_array_throttle(master);
  return reply;
}

HttpReply job_requeue(const ControlCall& call) {
  JobRecord* job = call.sim.store.find(job_id_of(call));
  if (!job) return not_in_controller(call);
  std::string error;
  std::optional<bool> force;
  if (!get_bool(call.body, "force", force, error)) return fail(400, error);
  Status st = call.sim.store.requeue(*job, force.value_or(false));
  if (!st) return fail(409, st.error().message());
  return json_out(200, job_summary(*job));
}

HttpReply job_unknown_endpoint(const ControlCall& call) {
  if (!call.sim.store.find(job_id_of(call))) return not_in_controller(call);
  return fail(404, "unknown control endpoint " + call.request.method + " " + call.target.path);
}

}  // namespace tpslurm::sim::control
