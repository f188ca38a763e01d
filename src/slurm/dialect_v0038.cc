#include "slurm/dialect_v0038.h"

#include "slurm/json_dialect.h"
#include "slurm/json_reader.h"

namespace tpslurm::slurm {
namespace {

namespace bj = boost::json;

bj::object component_v0038(const model::SubmitDescription& description, std::size_t index) {
  const model::SubmitComponent& component = description.components[index];
  bj::object job;
  job["name"] = description.tag.name;
  job["comment"] = description.tag.comment;
  job["current_working_directory"] = description.tag.working_directory;
  job["partition"] = component.partition;
  if (!component.constraint.empty()) job["constraints"] = component.constraint;
  job["nodes"] = std::to_string(component.nodes);
  job["tasks_per_node"] = component.tasks_per_node;
  job["cpus_per_task"] = component.cpus_per_task;
  if (component.memory_mb > 0) job["memory_per_node"] = component.memory_mb;
  if (!component.gres_per_node.empty()) job["gres"] = component.gres_per_node;
  // Required in every component: 22.05 carries nothing over between components.
  bj::object environment;
  for (const auto& [name, value] : description.environment) environment[name] = value;
  job["environment"] = std::move(environment);
  if (!description.standard_output.empty()) job["standard_output"] = description.standard_output;
  if (!description.standard_error.empty()) job["standard_error"] = description.standard_error;
  if (!description.account.empty()) job["account"] = description.account;
  if (!description.qos.empty()) job["qos"] = description.qos;
  if (!description.reservation.empty()) job["reservation"] = description.reservation;
  if (!description.wckey.empty()) job["wckey"] = description.wckey;
  if (description.exclusive) job["exclusive"] = "true";
  // On every component: 22.05 carries nothing over between components.
  if (description.hold) job["hold"] = true;
  if (description.time_limit_minutes) job["time_limit"] = *description.time_limit_minutes;
  if (description.signal) {
    job["signal"] = std::string(description.signal->batch_only ? "B:" : "") + description.signal->signal + "@" +
                    std::to_string(description.signal->seconds_before);
  }
  // Never with several components (check_description): `--array` as sbatch sends it.
  if (description.array) job["array"] = description.array->text();
  // 22.05's `requeue` handler ignores its value and enables requeue; only this disables it.
  job["no_requeue"] = true;
  return job;
}

class DialectV0038 final : public JsonDialect {
 public:
  std::string_view version() const override { return "v0.0.38"; }

  Result<std::string> encode_submit(const model::SubmitDescription& description) const override {
    if (auto checked = check_description(description); !checked.ok()) return checked.error();
    bj::object body;
    body["script"] = description.script;
    if (description.heterogeneous()) {
      bj::array jobs;
      for (std::size_t i = 0; i < description.components.size(); ++i) jobs.emplace_back(component_v0038(description, i));
      body["jobs"] = std::move(jobs);
    } else {
      body["job"] = component_v0038(description, 0);
    }
    return bj::serialize(body);
  }

  Result<JobsStateReply> decode_jobs_state(std::string_view) const override {
    return invalid_argument("v0.0.38 has no jobs/state endpoint (Slurm 24.05+); poll with jobs?update_time=");
  }

  // On 22.05 ping loads slurmctld's configuration, so it is authenticated: a bad token answers
  // 500 "slurmctld config is unable to load" (transcripts auth_badsig, auth_expired).
  std::string preflight_path() const override { return "/slurm/v0.0.38/ping"; }

  bool unchanged(int http_status, const JobsReply*) const override { return http_status == 304; }

  bool has_jobs_state() const override { return false; }
  bool updates_per_component() const override { return false; }

  // Seen on the real 22.05.8: a bare number is refused with error 9000 "Unable to parse time
  // format"; Slurm's time parser reads "uts<seconds>" as Unix seconds, whatever the time zone.
  std::string query_time(std::int64_t unix_seconds) const override { return "uts" + std::to_string(unix_seconds); }
  std::string update_time_value(std::int64_t unix_seconds) const override { return std::to_string(unix_seconds); }

 protected:
  model::JobSnapshot read_job(const bj::object& record) const override {
    model::JobSnapshot job;
    job.job_id = static_cast<std::uint32_t>(json::plain_integer(record.if_contains("job_id")).value_or(0));
    if (auto leader = json::plain_integer(record.if_contains("het_job_id")); leader && *leader > 0) {
      job.het_job_id = static_cast<std::uint32_t>(*leader);
      job.het_job_offset = static_cast<std::uint32_t>(json::plain_integer(record.if_contains("het_job_offset")).value_or(0));
    }
    // A plain job says array_job_id 0 and array_task_id null; the meta record null as well.
    if (auto master = json::plain_integer(record.if_contains("array_job_id")); master && *master > 0) {
      job.array_job_id = static_cast<std::uint32_t>(*master);
      if (auto task = json::plain_integer(record.if_contains("array_task_id")); task && *task >= 0 && *task < kNoTask) {
        job.array_task_id = static_cast<std::uint32_t>(*task);
      }
      job.array_task_string = json::string_field(record, "array_task_string");
    }
    job.name = json::string_field(record, "name");
    job.comment = json::string_field(record, "comment");
    job.working_directory = json::string_field(record, "current_working_directory");
    job.partition = json::string_field(record, "partition");
    job.nodes = json::string_field(record, "nodes");
    job.state = model::SlurmState::from_v0038(json::string_field(record, "job_state"));
    job.state_reason = json::string_field(record, "state_reason");
    if (job.state.base_is_final() || !job.state.base_known) {
      // The raw wait status: exit 3 is 768, SIGTERM is 15.
      if (auto raw = json::plain_integer(record.if_contains("exit_code")); raw && *raw >= 0) {
        if ((*raw & 0x7f) == 0) {
          job.exit_code = static_cast<int>((*raw >> 8) & 0xff);
        } else {
          job.exit_signal = static_cast<int>(*raw & 0x7f);
        }
      }
    }
    job.requeue = json::bool_field(record, "requeue");
    job.restart_count = static_cast<int>(json::plain_integer(record.if_contains("restart_cnt")).value_or(0));
    job.submit_time = json::time_field(record.if_contains("submit_time"));
    job.start_time = json::time_field(record.if_contains("start_time"));
    job.end_time = json::time_field(record.if_contains("end_time"));
    job.standard_output = json::string_field(record, "standard_output");
    job.standard_error = json::string_field(record, "standard_error");
    return job;
  }

  // dbv0.0.38 (recorded from the real 22.05.8 in tests/slurm/recorded/): `state.current` is one
  // string, `comment.job` is null unless slurmdbd stores job comments
  // (AccountingStoreFlags=job_comment), `het.job_offset` is null for a plain job. Its exit
  // code is left unset: dbv0.0.38 reports SUCCESS and 0 for every normal exit, even exit 3
  // (docs/slurm.md, *v0.0.38 (Slurm 22.05)*).
  model::JobSnapshot read_db_job(const bj::object& record) const override {
    model::JobSnapshot job = read_db_common(record);
    if (const auto* state = record.if_contains("state"); state != nullptr && state->is_object()) {
      job.state = model::SlurmState::from_v0038(json::string_field(state->as_object(), "current"));
    }
    return job;
  }

  Result<std::vector<SlurmMessage>> read_refusals(const bj::object&, const ReplyBase& base) const override {
    return base.errors;
  }

  bool read_ping(const bj::object& entry, PingReply& reply) const override {
    reply.status = json::string_field(entry, "ping");
    reply.responding = reply.status == "UP";
    return json::string_field(entry, "mode") == "primary";
  }
};

}  // namespace

std::unique_ptr<Dialect> make_dialect_v0038() { return std::make_unique<DialectV0038>(); }

}  // namespace tpslurm::slurm
