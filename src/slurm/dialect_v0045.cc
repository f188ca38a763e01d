#include "slurm/dialect_v0045.h"

#include <algorithm>

#include "slurm/json_reader.h"

namespace tpslurm::slurm {
namespace {

namespace bj = boost::json;

std::optional<TimePoint> time_of(const bj::value* value) {
  auto seconds = json::no_val_integer(value);
  if (!seconds || *seconds <= 0) return std::nullopt;
  return from_unix_seconds(*seconds);
}

bj::object component_body(const model::SubmitDescription& description, std::size_t index) {
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
  if (description.time_limit_minutes) job["time_limit"] = json::no_val_struct(*description.time_limit_minutes);
  if (description.signal) {
    job["kill_warning_signal"] = description.signal->signal;
    job["kill_warning_delay"] = json::no_val_struct(description.signal->seconds_before);
    if (description.signal->batch_only) job["kill_warning_flags"] = bj::array{"BATCH_JOB"};
  }
  job["requeue"] = false;
  return job;
}

model::JobSnapshot read_job(const bj::object& record) {
  model::JobSnapshot job;
  job.job_id = static_cast<std::uint32_t>(json::plain_integer(record.if_contains("job_id")).value_or(0));
  if (const auto* step = record.if_contains("step_id"); step != nullptr && step->is_object()) {
    job.sluid = json::string_field(step->as_object(), "sluid");
  }
  // A plain job reports het_job_id {"set":true,"number":0}.
  if (auto leader = json::no_val_integer(record.if_contains("het_job_id")); leader && *leader > 0) {
    job.het_job_id = static_cast<std::uint32_t>(*leader);
    job.het_job_offset = static_cast<std::uint32_t>(json::no_val_integer(record.if_contains("het_job_offset")).value_or(0));
  }
  job.name = json::string_field(record, "name");
  job.comment = json::string_field(record, "comment");
  job.working_directory = json::string_field(record, "current_working_directory");
  job.partition = json::string_field(record, "partition");
  job.nodes = json::string_field(record, "nodes");
  job.state = model::SlurmState::from_list(json::string_list(record.if_contains("job_state")));
  job.state_reason = json::string_field(record, "state_reason");
  if (job.state.base_is_final() || !job.state.base_known) {
    if (const auto* exit = record.if_contains("exit_code"); exit != nullptr && exit->is_object()) {
      const auto& fields = exit->as_object();
      const auto status = json::string_list(fields.if_contains("status"));
      const bool signalled =
          std::find_if(status.begin(), status.end(), [](const std::string& word) {
            return word == "SIGNALED" || word == "CORE_DUMPED";
          }) != status.end();
      if (signalled) {
        if (const auto* signal = fields.if_contains("signal"); signal != nullptr && signal->is_object()) {
          if (auto id = json::no_val_integer(signal->as_object().if_contains("id"))) job.exit_signal = static_cast<int>(*id);
        }
      } else if (auto code = json::no_val_integer(fields.if_contains("return_code"))) {
        job.exit_code = static_cast<int>(*code);
      }
    }
  }
  job.requeue = json::bool_field(record, "requeue");
  job.restart_count = static_cast<int>(json::plain_integer(record.if_contains("restart_cnt")).value_or(0));
  job.submit_time = time_of(record.if_contains("submit_time"));
  job.start_time = time_of(record.if_contains("start_time"));
  job.end_time = time_of(record.if_contains("end_time"));
  job.standard_output = json::string_field(record, "stdout_expanded");
  if (job.standard_output.empty()) job.standard_output = json::string_field(record, "standard_output");
  job.standard_error = json::string_field(record, "stderr_expanded");
  if (job.standard_error.empty()) job.standard_error = json::string_field(record, "standard_error");
  return job;
}

class DialectV0045 final : public Dialect {
 public:
  std::string_view version() const override { return "v0.0.45"; }

  Result<std::string> encode_submit(const model::SubmitDescription& description) const override {
    if (auto checked = check_description(description); !checked.ok()) return checked.error();
    bj::object body;
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
    const auto* status = object->if_contains("status");
    if (status == nullptr || !status->is_array()) return corrupt("the answer has no \"status\" list");
    bool all_unknown = true;
    bool all_done = true;
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
      all_unknown = all_unknown && message.number == 2017;
      all_done = all_done && message.number == 2021;
      reply.refusals.push_back(std::move(message));
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
      reply.status = json::string_field(*fields, "status");
      reply.responding = json::bool_field(*fields, "responding");
      if (json::bool_field(*fields, "primary", true)) break;
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

  // jobs/state for one id costs one small RPC and is authenticated (26.05 answers a bad token
  // there with 511); an unknown id answers 200 {"jobs": []} (transcript 27).
  std::string preflight_path() const override { return "/slurm/v0.0.45/jobs/state?job_id=1"; }

  bool unchanged(int http_status, const JobsReply* reply) const override {
    if (http_status != 200 || reply == nullptr || !reply->jobs.empty()) return false;
    for (const auto& warning : reply->warnings) {
      if (warning.description.rfind("No job changes since update_time", 0) == 0) return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Dialect> make_dialect_v0045() { return std::make_unique<DialectV0045>(); }

}  // namespace tpslurm::slurm
