// The control endpoints over many jobs: create them in bulk, advance them by state, reset
// the job ids.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <string>
#include <vector>

#include "auth.h"
#include "control_body.h"
#include "control_routes.h"
#include "control_views.h"

namespace tpslurm::sim::control {

namespace json = boost::json;

namespace {

// What POST /sim/jobs/bulk reads from its body.
struct BulkRequest {
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
  // One value per job, in order (every component of job i gets the i-th): what a benchmark
  // needs to give each job the tag of one journaled attempt.
  std::vector<std::string> names;
  std::vector<std::string> comments;
  std::vector<std::string> working_directories;
};

// An optional array of strings.
bool get_strings(const json::object& body, const char* key, std::vector<std::string>& out, std::string& error) {
  const json::value* v = body.if_contains(key);
  if (v == nullptr) return true;
  if (!v->is_array()) {
    error = std::string("\"") + key + "\" must be an array of strings, one per job";
    return false;
  }
  for (const json::value& item : v->get_array()) {
    if (!item.is_string()) {
      error = std::string("\"") + key + "\" must be an array of strings, one per job";
      return false;
    }
    out.emplace_back(item.get_string());
  }
  return true;
}

bool read_bulk(const json::object& body, BulkRequest& r, std::string& error) {
  return get_int(body, "count", r.count, error) && get_string(body, "state", r.state, error) &&
         get_string(body, "name_prefix", r.prefix, error) && get_string(body, "partition", r.partition, error) &&
         get_string(body, "user", r.user, error) && get_string(body, "comment", r.comment, error) &&
         get_int(body, "het_components", r.het, error) && get_bool(body, "requeue", r.requeue, error) &&
         get_bool(body, "auto_progress", r.auto_progress, error) && get_int(body, "exit_code", r.exit_code, error) &&
         get_strings(body, "names", r.names, error) && get_strings(body, "comments", r.comments, error) &&
         get_strings(body, "working_directories", r.working_directories, error);
}

// A per-job list is absent or has exactly `count` entries.
bool sized(const std::vector<std::string>& list, const char* key, std::int64_t count, std::string& error) {
  if (list.empty() || static_cast<std::int64_t>(list.size()) == count) return true;
  error = std::string("\"") + key + "\" has " + std::to_string(list.size()) + " entries for " + std::to_string(count) +
          " jobs; give one per job or leave it out";
  return false;
}

// The components of bulk job number `i`.
std::vector<JobRecord> bulk_components(const BulkRequest& r, const SimOptions& options, const std::string& partition,
                                       std::int64_t i) {
  const std::string owner = r.user.value_or("root");
  std::vector<JobRecord> components;
  for (std::int64_t k = 0; k < r.het.value_or(1); ++k) {
    JobRecord rec;
    const auto at = static_cast<std::size_t>(i);
    rec.name = r.names.empty() ? r.prefix.value_or("bulk-") + std::to_string(i) : r.names[at];
    rec.comment = r.comments.empty() ? r.comment.value_or("") : r.comments[at];
    rec.partition = partition;
    rec.user_name = owner;
    rec.user_id = uid_of(owner);
    rec.group_name = group_of(owner);
    rec.group_id = rec.user_id;
    rec.environment = {"PATH=/usr/bin:/bin"};
    rec.script = k == 0 ? "#!/bin/bash\ntrue\n" : "";
    rec.cwd = r.working_directories.empty() ? options.default_cwd : r.working_directories[at];
    rec.requeue = r.requeue.value_or(false);
    rec.auto_progress = r.auto_progress.value_or(false);
    components.push_back(std::move(rec));
  }
  return components;
}

// Moves `job` with `change`, through RUNNING first when the change finishes it from PENDING
// (a job cannot complete without having run).
Status apply_through_running(JobStore& store, JobRecord& job, const StateChange& change, bool through_running) {
  if (through_running) {
    StateChange start;
    start.state = BaseState::running;
    (void)store.apply(job, start);
  }
  return store.apply(job, change);
}

}  // namespace

HttpReply jobs_bulk(const ControlCall& call) {
  BulkRequest r;
  std::string error;
  if (!read_bulk(call.body, r, error)) return fail(400, error);
  if (!r.count || *r.count < 1 || *r.count > 2'000'000) {
    return fail(400, "\"count\" must be an integer from 1 to 2000000");
  }
  if (r.het && (*r.het < 1 || *r.het > 8)) return fail(400, "\"het_components\" must be from 1 to 8");
  if (!sized(r.names, "names", *r.count, error) || !sized(r.comments, "comments", *r.count, error) ||
      !sized(r.working_directories, "working_directories", *r.count, error)) {
    return fail(400, error);
  }
  std::optional<BaseState> target_state = parse_base_state(r.state.value_or("PENDING"));
  if (!target_state) return fail(400, "\"state\": unknown state \"" + *r.state + "\"");
  const std::string part = r.partition.value_or(call.sim.options.cluster.default_partition);
  if (!call.sim.options.cluster.has_partition(part)) return fail(400, "\"partition\": no partition \"" + part + "\"");
  StateChange change;
  if (*target_state != BaseState::pending) {
    change.state = *target_state;
    if (r.exit_code) change.exit_code = static_cast<int>(*r.exit_code);
  }
  const bool through_running = change.state && *change.state != BaseState::running && is_finished(*change.state);
  std::uint32_t first = 0;
  std::uint32_t last = 0;
  for (std::int64_t i = 0; i < *r.count; ++i) {
    std::uint32_t id = call.sim.store.submit(bulk_components(r, call.sim.options, part, i));
    if (i == 0) first = id;
    last = id + static_cast<std::uint32_t>(r.het.value_or(1)) - 1;
    if (!change.state) continue;
    for (JobRecord* member : call.sim.store.het_group(*call.sim.store.find(id))) {
      Status st = apply_through_running(call.sim.store, *member, change, through_running);
      if (!st) return fail(409, st.error().message());
    }
  }
  call.sim.stats.jobs_created += static_cast<std::uint64_t>(*r.count * r.het.value_or(1));
  return json_out(200, json::object{{"first_job_id", first}, {"last_job_id", last}, {"count", *r.count}});
}

HttpReply jobs_advance(const ControlCall& call) {
  std::string error;
  std::optional<std::int64_t> count;
  std::optional<std::string> from;
  std::optional<std::string> to;
  std::optional<std::int64_t> exit_code;
  if (!get_int(call.body, "count", count, error) || !get_string(call.body, "from", from, error) ||
      !get_string(call.body, "to", to, error) || !get_int(call.body, "exit_code", exit_code, error)) {
    return fail(400, error);
  }
  auto from_state = parse_base_state(from.value_or("PENDING"));
  auto to_state = parse_base_state(to.value_or("RUNNING"));
  if (!from_state || !to_state) {
    return fail(400, "\"from\"/\"to\" must be Slurm base states such as PENDING or RUNNING");
  }
  if (!count || *count < 0) return fail(400, "\"count\" must be a non-negative integer");
  std::vector<JobRecord*> picked;
  for (const auto& [id, job] : call.sim.store.controller_jobs()) {
    if (static_cast<std::int64_t>(picked.size()) >= *count) break;
    if (job->state == *from_state && !(job->flags & state_flag::completing)) picked.push_back(job.get());
  }
  StateChange change;
  change.state = *to_state;
  if (exit_code) change.exit_code = static_cast<int>(*exit_code);
  const bool through_running =
      *from_state == BaseState::pending && is_finished(*to_state) && *to_state != BaseState::cancelled;
  json::array changed;
  for (JobRecord* job : picked) {
    Status st = apply_through_running(call.sim.store, *job, change, through_running);
    if (!st) return fail(409, st.error().message());
    changed.emplace_back(job->job_id);
  }
  return json_out(200, json::object{{"changed", std::move(changed)}});
}

HttpReply ids_reset(const ControlCall& call) {
  std::string error;
  std::optional<std::int64_t> next;
  std::optional<bool> forget;
  if (!get_int(call.body, "next_id", next, error) || !get_bool(call.body, "forget_jobs", forget, error)) {
    return fail(400, error);
  }
  if (next && (*next < 1 || *next > 0x03fffffe)) return fail(400, "\"next_id\" must be from 1 to 67108862");
  call.sim.store.reset_ids(static_cast<std::uint32_t>(next.value_or(call.sim.options.first_job_id)), forget.value_or(true));
  return json_out(200, json::object{{"next_job_id", call.sim.store.next_job_id()},
                                    {"jobs_in_controller", call.sim.store.controller_jobs().size()}});
}

HttpReply archive(const ControlCall& call) {
  json::array jobs;
  for (const auto& record : call.sim.store.accounting()) jobs.emplace_back(job_brief(*record));
  return json_out(200, json::object{{"jobs", std::move(jobs)}});
}

}  // namespace tpslurm::sim::control
