#include "slurm/dialect_v004x.h"

#include <algorithm>
#include <array>

#include "slurm/json_dialect.h"
#include "slurm/json_reader.h"

namespace tpslurm::slurm {
namespace {

namespace bj = boost::json;

bj::object component_v004x(const model::SubmitDescription& description, std::size_t index) {
  const model::SubmitComponent& component = description.components[index];
  bj::object job;
  if (index == 0) job["script"] = description.script;
  job["name"] = description.tag.name;
  job["comment"] = description.tag.comment;
  job["current_working_directory"] = description.tag.working_directory;
  job["partition"] = component.partition;
  if (!component.constraint.empty()) job["constraints"] = component.constraint;
  job["nodes"] = std::to_string(component.nodes);
  job["tasks_per_node"] = component.tasks_per_node;
  job["cpus_per_task"] = component.cpus_per_task;
  if (component.memory_mb > 0) job["memory_per_node"] = json::no_val_struct(component.memory_mb);
  // The data_parser does not prepend "gres/": a bare "gpu:1" would be silently ignored.
  if (!component.gres_per_node.empty()) job["tres_per_node"] = "gres/" + component.gres_per_node;
  bj::array environment;
  for (const auto& [name, value] : description.environment) environment.emplace_back(name + "=" + value);
  job["environment"] = std::move(environment);
  if (!description.standard_output.empty()) job["standard_output"] = description.standard_output;
  if (!description.standard_error.empty()) job["standard_error"] = description.standard_error;
  if (!description.account.empty()) job["account"] = description.account;
  if (!description.qos.empty()) job["qos"] = description.qos;
  if (!description.reservation.empty()) job["reservation"] = description.reservation;
  if (!description.wckey.empty()) job["wckey"] = description.wckey;
  if (description.exclusive) job["shared"] = bj::array{"none"};
  // On every component: slurmctld holds (and releases) each component record by itself.
  if (description.hold) job["hold"] = true;
  if (description.time_limit_minutes) job["time_limit"] = json::no_val_struct(*description.time_limit_minutes);
  if (description.signal) {
    job["kill_warning_signal"] = description.signal->signal;
    job["kill_warning_delay"] = json::no_val_struct(description.signal->seconds_before);
    if (description.signal->batch_only) job["kill_warning_flags"] = bj::array{"BATCH_JOB"};
  }
  // Never with several components (check_description): `--array` as sbatch sends it.
  if (description.array) job["array"] = description.array->text();
  // 26.05 applies requeue per component: component 0's false does not carry over.
  job["requeue"] = false;
  return job;
}

// PROCESS_EXIT_CODE_VERBOSE, the same in slurmctld and slurmdbd records: a signal when the
// status says SIGNALED or CORE_DUMPED, else the return code.
void read_exit(const bj::value* value, model::JobSnapshot& job) {
  if (value == nullptr || !value->is_object()) return;
  const auto& fields = value->as_object();
  const auto status = json::string_list(fields.if_contains("status"));
  const bool signalled = std::any_of(status.begin(), status.end(), [](const std::string& word) {
    return word == "SIGNALED" || word == "CORE_DUMPED";
  });
  if (signalled) {
    if (const auto* signal = fields.if_contains("signal"); signal != nullptr && signal->is_object()) {
      if (auto id = json::no_val_integer(signal->as_object().if_contains("id")))
        job.exit_signal = static_cast<int>(*id);
    }
  } else if (auto code = json::no_val_integer(fields.if_contains("return_code"))) {
    job.exit_code = static_cast<int>(*code);
  }
}

class DataParserDialect final : public JsonDialect {
 public:
  DataParserDialect(const DataParserTraits& traits, const ReleaseRules& rules) : m_traits(traits), m_rules(rules) {}

  std::string_view version() const override { return m_traits.version; }

  Result<std::string> encode_submit(const model::SubmitDescription& description) const override {
    if (auto checked = check_description(description); !checked.ok()) return checked.error();
    bj::object body;
    if (description.heterogeneous()) {
      bj::array jobs;
      for (std::size_t i = 0; i < description.components.size(); ++i) jobs.emplace_back(component_v004x(description, i));
      body["jobs"] = std::move(jobs);
    } else {
      body["job"] = component_v004x(description, 0);
    }
    if (m_rules.submit_top_level_script) body["script"] = description.script;
    return bj::serialize(body);
  }

  // jobs/state for one id costs one small RPC and is authenticated (26.05 answers a bad token
  // there with 511); an unknown id answers 200 {"jobs": []} (transcript 27). Where it is not
  // bound, diag: slurmctld authenticates its statistics RPC, while ping's is not proof.
  std::string preflight_path() const override {
    return m_rules.jobs_state ? jobs_state_path(std::array<std::uint32_t, 1>{1}) : diag_path();
  }

  bool unchanged(int http_status, const JobsReply* reply) const override {
    if (http_status != 200 || reply == nullptr || !reply->jobs.empty()) return false;
    for (const auto& warning : reply->warnings) {
      if (warning.description.rfind("No job changes since update_time", 0) == 0) return true;
    }
    return false;
  }

  bool has_jobs_state() const override { return m_rules.jobs_state; }
  bool updates_per_component() const override { return true; }
  std::string query_time(std::int64_t unix_seconds) const override {
    return (m_traits.query_time_uts ? "uts" : "") + std::to_string(unix_seconds);
  }

 protected:
  model::JobSnapshot read_job(const bj::object& record) const override {
    model::JobSnapshot job;
    job.job_id = static_cast<std::uint32_t>(json::plain_integer(record.if_contains("job_id")).value_or(0));
    if (records_carry_sluid(m_traits.version)) {
      if (const auto* step = record.if_contains("step_id"); step != nullptr && step->is_object()) {
        job.sluid = json::string_field(step->as_object(), "sluid");
      }
    }
    // A plain job reports het_job_id {"set":true,"number":0}.
    if (auto leader = json::no_val_integer(record.if_contains("het_job_id")); leader && *leader > 0) {
      job.het_job_id = static_cast<std::uint32_t>(*leader);
      job.het_job_offset =
          static_cast<std::uint32_t>(json::no_val_integer(record.if_contains("het_job_offset")).value_or(0));
    }
    // {"set": true, "number": 0} for a plain job; the meta record's task id is {"set": false}.
    if (auto master = json::no_val_integer(record.if_contains("array_job_id")); master && *master > 0) {
      job.array_job_id = static_cast<std::uint32_t>(*master);
      if (auto task = json::no_val_integer(record.if_contains("array_task_id")); task && *task >= 0 && *task < kNoTask) {
        job.array_task_id = static_cast<std::uint32_t>(*task);
      }
      job.array_task_string = json::string_field(record, "array_task_string");
    }
    job.name = json::string_field(record, "name");
    job.comment = json::string_field(record, "comment");
    job.working_directory = json::string_field(record, "current_working_directory");
    job.partition = json::string_field(record, "partition");
    job.nodes = json::string_field(record, "nodes");
    job.state = model::SlurmState::from_list(json::string_list(record.if_contains("job_state")));
    job.state_reason = json::string_field(record, "state_reason");
    if (job.state.base_is_final() || !job.state.base_known) read_exit(record.if_contains("exit_code"), job);
    job.requeue = json::bool_field(record, "requeue");
    job.restart_count = static_cast<int>(json::plain_integer(record.if_contains("restart_cnt")).value_or(0));
    job.submit_time = json::time_field(record.if_contains("submit_time"));
    job.start_time = json::time_field(record.if_contains("start_time"));
    job.end_time = json::time_field(record.if_contains("end_time"));
    job.standard_output = json::string_field(record, "stdout_expanded");
    if (job.standard_output.empty()) job.standard_output = json::string_field(record, "standard_output");
    job.standard_error = json::string_field(record, "stderr_expanded");
    if (job.standard_error.empty()) job.standard_error = json::string_field(record, "standard_error");
    return job;
  }

  model::JobSnapshot read_db_job(const bj::object& record) const override {
    model::JobSnapshot job = read_db_common(record);
    // slurmctld's step_id.sluid is the job's original SLUID; slurmdbd's `sluid` is the
    // per-run one, so `original_sluid` is the one to compare with.
    if (m_traits.sluid_in_db_records) {
      job.sluid = json::string_field(record, "original_sluid");
      if (job.sluid.empty()) job.sluid = json::string_field(record, "sluid");
    }
    if (const auto* state = record.if_contains("state"); state != nullptr && state->is_object()) {
      job.state = model::SlurmState::from_list(json::string_list(state->as_object().if_contains("current")));
    }
    if (job.state.base_is_final()) read_exit(record.if_contains("exit_code"), job);
    job.restart_count = static_cast<int>(json::plain_integer(record.if_contains("restart_cnt")).value_or(0));
    job.standard_output = json::string_field(record, "stdout_expanded");
    job.standard_error = json::string_field(record, "stderr_expanded");
    return job;
  }

  Result<std::vector<SlurmMessage>> read_refusals(const bj::object& body, const ReplyBase& base) const override {
    const auto* status = body.if_contains("status");
    // Before 24.11 slurm_kill_job's one error is in errors[] and there is no list. Only
    // slurmctld's refusals (2000-2999: 2017, 2020, ...) say what happened to the signal; any
    // other error (a lost connection to slurmctld, an auth failure) is left to the HTTP
    // status's classification, as an answer without its list is from 24.11 on.
    if (status == nullptr && !m_rules.cancel_status_list) {
      for (const auto& error : base.errors) {
        if (error.number < 2000 || error.number > 2999) return corrupt("an error that is not slurmctld's refusal");
      }
      return base.errors;
    }
    if (status == nullptr || !status->is_array()) return corrupt("the answer has no \"status\" list");
    std::vector<SlurmMessage> refusals;
    for (const auto& entry : status->as_array()) {
      const auto* fields = entry.if_object();
      if (fields == nullptr) continue;
      const auto* error = fields->if_contains("error");
      if (error == nullptr || !error->is_object()) continue;
      SlurmMessage message;
      message.number = static_cast<int>(json::plain_integer(error->as_object().if_contains("code")).value_or(0));
      message.error = json::string_field(error->as_object(), "string");
      message.description = json::string_field(error->as_object(), "message");
      message.source = "status[].step_id=" + json::string_field(*fields, "step_id");
      refusals.push_back(std::move(message));
    }
    return refusals;
  }

  bool read_ping(const bj::object& entry, PingReply& reply) const override {
    // v0.0.45 says "status" ("No error"); v0.0.40-44 say "pinged" ("UP") (transcripts 01-03).
    reply.status = json::string_field(entry, "status");
    if (reply.status.empty()) reply.status = json::string_field(entry, "pinged");
    // v0.0.40/41 have no `responding`: "UP" is slurmctld's answer (ping_all_controllers).
    reply.responding = entry.contains("responding") ? json::bool_field(entry, "responding") : reply.status == "UP";
    if (!entry.contains("primary")) return json::string_field(entry, "mode") == "primary";
    return json::bool_field(entry, "primary", true);
  }

 private:
  DataParserTraits m_traits;
  ReleaseRules m_rules;
};

// SLUIDs: slurmctld's records from v0.0.44 (records_carry_sluid), slurmdbd's original SLUID from v0.0.45.
constexpr std::array<DataParserTraits, 6> kVersions{{
    {.version = "v0.0.45", .sluid_in_db_records = true},
    {.version = "v0.0.44", .sluid_in_db_records = false},
    {.version = "v0.0.43", .sluid_in_db_records = false},
    {.version = "v0.0.42", .sluid_in_db_records = false},
    {.version = "v0.0.41", .sluid_in_db_records = false, .query_time_uts = true},
    {.version = "v0.0.40", .sluid_in_db_records = false, .query_time_uts = true},
}};

}  // namespace

std::unique_ptr<Dialect> make_data_parser_dialect(std::string_view version, const ReleaseRules& rules) {
  for (const auto& traits : kVersions) {
    if (traits.version == version) return std::make_unique<DataParserDialect>(traits, rules);
  }
  return nullptr;
}

}  // namespace tpslurm::slurm
