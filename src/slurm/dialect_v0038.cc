#include "slurm/dialect_v0038.h"

#include "slurm/json_reader.h"

namespace tpslurm::slurm {
namespace {

namespace bj = boost::json;

std::optional<TimePoint> time_of(const bj::value* value) {
  auto seconds = json::plain_integer(value);
  if (!seconds || *seconds <= 0) return std::nullopt;
  return from_unix_seconds(*seconds);
}

bj::object component_body(const model::SubmitDescription& description, std::size_t index) {
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
  if (description.time_limit_minutes) job["time_limit"] = *description.time_limit_minutes;
  if (description.signal) {
    job["signal"] = std::string(description.signal->batch_only ? "B:" : "") + description.signal->signal + "@" +
                    std::to_string(description.signal->seconds_before);
  }
  // 22.05's `requeue` handler ignores its value and enables requeue; only this disables it.
  job["no_requeue"] = true;
  return job;
}

model::JobSnapshot read_job(const bj::object& record) {
  model::JobSnapshot job;
  job.job_id = static_cast<std::uint32_t>(json::plain_integer(record.if_contains("job_id")).value_or(0));
  if (auto leader = json::plain_integer(record.if_contains("het_job_id")); leader && *leader > 0) {
    job.het_job_id = static_cast<std::uint32_t>(*leader);
    job.het_job_offset = static_cast<std::uint32_t>(json::plain_integer(record.if_contains("het_job_offset")).value_or(0));
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
  job.submit_time = time_of(record.if_contains("submit_time"));
  job.start_time = time_of(record.if_contains("start_time"));
  job.end_time = time_of(record.if_contains("end_time"));
  job.standard_output = json::string_field(record, "standard_output");
  job.standard_error = json::string_field(record, "standard_error");
  return job;
}

class DialectV0038 final : public Dialect {
 public:
  std::string_view version() const override { return "v0.0.38"; }

  Result<std::string> encode_submit(const model::SubmitDescription& description) const override {
    if (auto checked = check_description(description); !checked.ok()) return checked.error();
    bj::object body;
    body["script"] = description.script;
    if (description.heterogeneous()) {
      bj::array jobs;
      for (std::size_t i = 0; i < description.components.size(); ++i) jobs.emplace_back(component_body(description, i));
      body["jobs"] = std::move(jobs);
    } else {
      body["job"] = component_body(description, 0);
    }
    return bj::serialize(body);
  }

  Result<ReplyBase> decode_base(std::string_view body) const override {
    auto object = json::parse_object(body);
    if (!object.ok()) return object.error();
    return json::read_base(*object);
  }

  Result<SubmitReply> decode_submit(std::string_view body) const override {
    auto object = json::parse_object(body);
    if (!object.ok()) return object.error();
    SubmitReply reply;
    static_cast<ReplyBase&>(reply) = json::read_base(*object);
    if (auto id = json::plain_integer(object->if_contains("job_id")); id && *id > 0) {
      reply.job_id = static_cast<std::uint32_t>(*id);
    }
    reply.user_message = json::string_field(*object, "job_submit_user_msg");
    return reply;
  }

  Result<JobsReply> decode_jobs(std::string_view body) const override {
    auto object = json::parse_object(body);
    if (!object.ok()) return object.error();
    JobsReply reply;
    static_cast<ReplyBase&>(reply) = json::read_base(*object);
    const auto* jobs = object->if_contains("jobs");
    if (jobs == nullptr || !jobs->is_array()) return corrupt("the answer has no \"jobs\" list");
    for (const auto& record : jobs->as_array()) {
      if (!record.is_object()) return corrupt("a \"jobs\" entry is not an object");
      reply.jobs.push_back(read_job(record.as_object()));
    }
    return reply;
  }

  Result<CancelReply> decode_cancel(std::string_view body) const override {
    auto object = json::parse_object(body);
    if (!object.ok()) return object.error();
    CancelReply reply;
    static_cast<ReplyBase&>(reply) = json::read_base(*object);
    reply.refusals = reply.errors;
    bool all_unknown = true;
    bool all_done = true;
    for (const auto& message : reply.refusals) {
      all_unknown = all_unknown && message.number == 2017;
      all_done = all_done && message.number == 2021;
    }
    if (reply.refusals.empty()) {
      reply.status = CancelStatus::signalled;
    } else if (all_unknown) {
      reply.status = CancelStatus::not_found;
    } else if (all_done) {
      reply.status = CancelStatus::already_done;
    } else {
      reply.status = CancelStatus::refused;
    }
    return reply;
  }

  Result<PingReply> decode_ping(std::string_view body) const override {
    auto object = json::parse_object(body);
    if (!object.ok()) return object.error();
    PingReply reply;
    static_cast<ReplyBase&>(reply) = json::read_base(*object);
    const auto* pings = object->if_contains("pings");
    if (pings == nullptr || !pings->is_array()) return corrupt("the answer has no \"pings\" list");
    for (const auto& entry : pings->as_array()) {
      const auto* fields = entry.if_object();
      if (fields == nullptr) continue;
      reply.status = json::string_field(*fields, "ping");
      reply.responding = reply.status == "UP";
      if (json::string_field(*fields, "mode") == "primary") break;
    }
    return reply;
  }

  Result<PartitionsReply> decode_partitions(std::string_view body) const override {
    auto object = json::parse_object(body);
    if (!object.ok()) return object.error();
    PartitionsReply reply;
    static_cast<ReplyBase&>(reply) = json::read_base(*object);
    const auto* partitions = object->if_contains("partitions");
    if (partitions == nullptr || !partitions->is_array()) return corrupt("the answer has no \"partitions\" list");
    for (const auto& entry : partitions->as_array()) {
      if (const auto* fields = entry.if_object()) reply.names.push_back(json::string_field(*fields, "name"));
    }
    return reply;
  }

  // On 22.05 ping loads slurmctld's configuration, so it is authenticated: a bad token answers
  // 500 "slurmctld config is unable to load" (transcripts auth_badsig, auth_expired).
  std::string preflight_path() const override { return "/slurm/v0.0.38/ping"; }

  bool unchanged(int http_status, const JobsReply*) const override { return http_status == 304; }
};

}  // namespace

std::unique_ptr<Dialect> make_dialect_v0038() { return std::make_unique<DialectV0038>(); }

}  // namespace tpslurm::slurm
