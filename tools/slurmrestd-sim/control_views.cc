#include "control_views.h"

#include <boost/json/array.hpp>
#include <string>

#include "sluid.h"

namespace tpslurm::sim::control {

namespace json = boost::json;
namespace {

json::array flag_names(std::uint32_t flags) {
  json::array out;
  auto names = state_array(BaseState::pending, flags, Dialect::v0040);
  for (std::size_t i = 1; i < names.size(); ++i) out.emplace_back(std::string(names[i]));
  return out;
}

}  // namespace

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
  o["allocated"] = job.allocated;  // it was given nodes: it ran (a start time alone does not say so)
  o["last_signal"] = job.last_signal;
  o["auto_progress"] = job.auto_progress;
  return o;
}

json::object job_brief(const JobRecord& job) {
  return json::object{{"job_id", job.job_id},
                      {"name", job.name},
                      {"comment", job.comment},
                      {"current_working_directory", job.cwd},
                      {"standard_output", job.std_out},
                      {"state", std::string(base_state_name(job.state))},
                      {"hold", job.hold},
                      {"start_time", job.start_time},
                      {"allocated", job.allocated},
                      {"in_controller", job.in_controller}};
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

}  // namespace tpslurm::sim::control
