#include "slurm/json_dialect.h"

#include "slurm/json_listing.h"
#include "slurm/json_reader.h"
#include "slurm/receipt.h"

namespace tpslurm::slurm {
namespace {

namespace bj = boost::json;

// "14+0" -> 14 and offset 0; "12" -> 12; an array's "9_3" -> 9, task 3 and "9_*" -> 9 without a
// task (array_job_id 9 in both: the id before "_", settled by the bulk poll); anything else
// (a bracketed "9_[1-3]", which data_parser versions expand) -> nothing.
std::optional<JobStateEntry> state_entry(const bj::object& entry) {
  JobStateEntry out;
  const auto* id = entry.if_contains("job_id");
  if (id == nullptr) return std::nullopt;
  if (auto number = json::plain_integer(id)) {
    out.job_id = static_cast<std::uint32_t>(*number);
  } else if (id->is_string()) {
    const std::string_view text = id->as_string();
    const auto mark = text.find_first_of("+_");
    auto job = json::plain_integer_text(text.substr(0, mark));
    if (!job) return std::nullopt;
    out.job_id = static_cast<std::uint32_t>(*job);
    if (mark != std::string_view::npos && text[mark] == '+') {
      auto offset = json::plain_integer_text(text.substr(mark + 1));
      if (!offset) return std::nullopt;
      out.het_job_offset = static_cast<std::uint32_t>(*offset);
    } else if (mark != std::string_view::npos) {
      out.array_job_id = out.job_id;
      const std::string_view task = text.substr(mark + 1);
      if (task != "*") {
        auto task_number = json::plain_integer_text(task);
        if (!task_number || *task_number >= kNoTask) return std::nullopt;
        out.array_task_id = static_cast<std::uint32_t>(*task_number);
      }
    }
  } else {
    return std::nullopt;
  }
  if (out.job_id == 0) return std::nullopt;
  out.state = model::SlurmState::from_list(json::string_list(entry.if_contains("state")));
  return out;
}

// The rest of a listing answer (its "jobs" left empty by the parse), or why it is no listing.
Result<bj::object> checked_listing(bj::object object) {
  const auto* jobs = object.if_contains("jobs");
  if (jobs == nullptr || !jobs->is_array()) return corrupt("the answer has no \"jobs\" list");
  return object;
}

// The "jobs" list of a whole listing answer, one entry at a time; the rest as above.
Result<bj::object> read_listing(std::string_view body, const json::ListingEntry& on_entry) {
  auto object = json::parse_listing(body, "jobs", on_entry);
  if (!object.ok()) return object.error();
  return checked_listing(std::move(object).value());
}

}  // namespace

CancelStatus cancel_status(const std::vector<SlurmMessage>& refusals) {
  if (refusals.empty()) return CancelStatus::signalled;
  bool all_unknown = true;
  bool all_done = true;
  bool all_not_running = true;
  for (const auto& message : refusals) {
    all_unknown = all_unknown && message.number == 2017;
    all_done = all_done && message.number == 2021;
    all_not_running = all_not_running && message.number == kCannotAlterNowError;
  }
  if (all_unknown) return CancelStatus::not_found;
  if (all_done) return CancelStatus::already_done;
  if (all_not_running) return CancelStatus::not_running;
  return CancelStatus::refused;
}

Result<ReplyBase> JsonDialect::decode_base(std::string_view body) const {
  auto object = json::parse_object(body);
  if (!object.ok()) return object.error();
  return json::read_base(*object);
}

Result<SubmitReply> JsonDialect::decode_submit(std::string_view body) const {
  auto object = json::parse_object(body);
  if (!object.ok()) return object.error();
  SubmitReply reply;
  static_cast<ReplyBase&>(reply) = json::read_base(*object);
  ReceiptJobId receipt = read_receipt_job_id(object->if_contains("job_id"));
  reply.job_id = receipt.id;
  reply.job_id_problem = std::move(receipt.problem);
  reply.user_message = json::string_field(*object, "job_submit_user_msg");
  return reply;
}

model::JobSnapshot JsonDialect::read_db_common(const bj::object& record) {
  model::JobSnapshot job;
  job.job_id = static_cast<std::uint32_t>(json::plain_integer(record.if_contains("job_id")).value_or(0));
  if (const auto* het = record.if_contains("het"); het != nullptr && het->is_object()) {
    if (auto leader = json::plain_integer(het->as_object().if_contains("job_id")); leader && *leader > 0) {
      job.het_job_id = static_cast<std::uint32_t>(*leader);
      // v0.0.38 writes the offset as a plain number, v0.0.4x as {set,infinite,number}.
      job.het_job_offset =
          static_cast<std::uint32_t>(json::no_val_integer(het->as_object().if_contains("job_offset")).value_or(0));
    }
  }
  // `array`: the master's id and the task's (dbv0.0.38 plain numbers, v0.0.4x wrappers); a
  // plain job says job_id 0. The meta record's row has no task id and `task` as a hex mask.
  if (const auto* array = record.if_contains("array"); array != nullptr && array->is_object()) {
    if (auto master = json::no_val_integer(array->as_object().if_contains("job_id")); master && *master > 0) {
      job.array_job_id = static_cast<std::uint32_t>(*master);
      if (auto task = json::no_val_integer(array->as_object().if_contains("task_id")); task && *task >= 0 && *task < kNoTask) {
        job.array_task_id = static_cast<std::uint32_t>(*task);
      }
    }
  }
  job.name = json::string_field(record, "name");
  if (const auto* comment = record.if_contains("comment"); comment != nullptr && comment->is_object()) {
    job.comment = json::string_field(comment->as_object(), "job");
  }
  job.working_directory = json::string_field(record, "working_directory");
  job.partition = json::string_field(record, "partition");
  job.nodes = json::string_field(record, "nodes");
  if (const auto* state = record.if_contains("state"); state != nullptr && state->is_object()) {
    job.state_reason = json::string_field(state->as_object(), "reason");
  }
  if (const auto* time = record.if_contains("time"); time != nullptr && time->is_object()) {
    job.submit_time = json::time_field(time->as_object().if_contains("submission"));
    job.start_time = json::time_field(time->as_object().if_contains("start"));
    job.end_time = json::time_field(time->as_object().if_contains("end"));
  }
  job.allocation = read_allocation(record);
  return job;
}

// `time.elapsed` and `tres.allocated` ({type, name, count}: cpu, mem, node, gres/gpu; every
// version spells them alike; dbv0.0.38 writes a null name and an energy entry with a null
// count). GPUs are the `gpu` GRES, or the sum of its typed entries (`gpu:h100`) when the site
// tracks only those.
model::Allocation JsonDialect::read_allocation(const bj::object& record) {
  model::Allocation a;
  if (const auto* time = record.if_contains("time"); time != nullptr && time->is_object()) {
    a.elapsed_seconds = json::plain_integer(time->as_object().if_contains("elapsed")).value_or(0);
  }
  const auto* tres = record.if_contains("tres");
  const auto* allocated = tres != nullptr && tres->is_object() ? tres->as_object().if_contains("allocated") : nullptr;
  if (allocated == nullptr || !allocated->is_array()) return a;
  std::int64_t typed_gpus = 0;
  bool untyped_gpu = false;
  for (const auto& item : allocated->as_array()) {
    const auto* fields = item.if_object();
    if (fields == nullptr) continue;
    const std::string type = json::string_field(*fields, "type");
    const std::string name = json::string_field(*fields, "name");
    const std::int64_t count = json::plain_integer(fields->if_contains("count")).value_or(0);
    if (type == "cpu") a.cpus = count;
    if (type == "mem") a.memory_mb = count;
    if (type == "node") a.nodes = count;
    if (type == "gres" && name == "gpu") {
      a.gpus = count;
      untyped_gpu = true;
    }
    if (type == "gres" && name.starts_with("gpu:")) typed_gpus += count;
  }
  if (!untyped_gpu) a.gpus = typed_gpus;
  return a;
}

// Each "jobs" entry is read into a record as it completes; the rest of the answer, once the
// body has ended, into the envelope.
class JsonDialect::RecordsDecoder final : public JobsDecoder {
 public:
  RecordsDecoder(const JsonDialect& dialect, RecordSource source)
      : m_dialect(dialect),
        m_from_slurmdbd(source == RecordSource::slurmdbd),
        m_parser("jobs", [this](const bj::value& record) -> Status {
          if (!record.is_object()) return corrupt("a \"jobs\" entry is not an object");
          const auto& fields = record.as_object();
          m_reply.jobs.push_back(m_from_slurmdbd ? m_dialect.read_db_job(fields) : m_dialect.read_job(fields));
          return ok_status();
        }) {}

  void take(std::string_view piece) override { m_parser.write(piece); }

  Result<JobsReply> finish() override {
    auto object = m_parser.finish();
    if (!object.ok()) return object.error();
    auto listing = checked_listing(std::move(object).value());
    if (!listing.ok()) return listing.error();
    static_cast<ReplyBase&>(m_reply) = json::read_base(*listing);
    return std::move(m_reply);
  }

 private:
  const JsonDialect& m_dialect;
  bool m_from_slurmdbd;
  JobsReply m_reply;
  json::ListingParser m_parser;
};

std::unique_ptr<JobsDecoder> JsonDialect::jobs_decoder(RecordSource source) const {
  return std::make_unique<RecordsDecoder>(*this, source);
}

Result<JobsReply> JsonDialect::decode_records(std::string_view body, RecordSource source) const {
  RecordsDecoder decoder(*this, source);
  decoder.take(body);
  return decoder.finish();
}

Result<JobsReply> JsonDialect::decode_jobs(std::string_view body) const {
  return decode_records(body, RecordSource::slurmctld);
}

Result<JobsReply> JsonDialect::decode_db_jobs(std::string_view body) const {
  return decode_records(body, RecordSource::slurmdbd);
}

Result<CancelReply> JsonDialect::decode_cancel(std::string_view body) const {
  auto object = json::parse_object(body);
  if (!object.ok()) return object.error();
  CancelReply reply;
  static_cast<ReplyBase&>(reply) = json::read_base(*object);
  auto refusals = read_refusals(*object, reply);
  if (!refusals.ok()) return refusals.error();
  reply.refusals = std::move(refusals).value();
  reply.status = cancel_status(reply.refusals);
  return reply;
}

Result<PingReply> JsonDialect::decode_ping(std::string_view body) const {
  auto object = json::parse_object(body);
  if (!object.ok()) return object.error();
  PingReply reply;
  static_cast<ReplyBase&>(reply) = json::read_base(*object);
  const auto* pings = object->if_contains("pings");
  if (pings == nullptr || !pings->is_array()) return corrupt("the answer has no \"pings\" list");
  for (const auto& entry : pings->as_array()) {
    const auto* fields = entry.if_object();
    if (fields != nullptr && read_ping(*fields, reply)) break;
  }
  return reply;
}

Result<PartitionsReply> JsonDialect::decode_partitions(std::string_view body) const {
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

Result<NodesReply> JsonDialect::decode_nodes(std::string_view body) const {
  auto object = json::parse_object(body);
  if (!object.ok()) return object.error();
  NodesReply reply;
  static_cast<ReplyBase&>(reply) = json::read_base(*object);
  const auto* nodes = object->if_contains("nodes");
  if (nodes == nullptr || !nodes->is_array()) return corrupt("the answer has no \"nodes\" list");
  for (const auto& entry : nodes->as_array()) {
    const auto* fields = entry.if_object();
    if (fields == nullptr) continue;
    NodeResources node{json::string_field(*fields, "name"), {}, json::string_field(*fields, "gres")};
    const auto* features = fields->if_contains("features");
    if (features != nullptr && features->is_string()) {
      // v0.0.38: "h100,cpuonly".
      const std::string_view text = features->as_string();
      for (std::size_t start = 0; start < text.size();) {
        const std::size_t end = std::min(text.find(',', start), text.size());
        if (end > start) node.features.emplace_back(text.substr(start, end - start));
        start = end + 1;
      }
    } else {
      node.features = json::string_list(features);
    }
    reply.nodes.push_back(std::move(node));
  }
  return reply;
}

Result<AssociationsReply> JsonDialect::decode_associations(std::string_view body) const {
  auto object = json::parse_object(body);
  if (!object.ok()) return object.error();
  AssociationsReply reply;
  static_cast<ReplyBase&>(reply) = json::read_base(*object);
  const auto* associations = object->if_contains("associations");
  if (associations == nullptr || !associations->is_array()) return reply;
  for (const auto& entry : associations->as_array()) {
    if (const auto* fields = entry.if_object()) {
      reply.associations.push_back({json::string_field(*fields, "account"), json::string_field(*fields, "partition")});
    }
  }
  return reply;
}

Result<JobsStateReply> JsonDialect::decode_jobs_state(std::string_view body) const {
  JobsStateReply reply;
  auto object = read_listing(body, [&](const bj::value& entry) -> Status {
    const auto* fields = entry.if_object();
    if (fields == nullptr) return corrupt("a \"jobs\" entry is not an object");
    // An entry whose id this build cannot read cannot be one we asked for.
    if (auto parsed = state_entry(*fields)) reply.entries.push_back(std::move(*parsed));
    return ok_status();
  });
  if (!object.ok()) return object.error();
  static_cast<ReplyBase&>(reply) = json::read_base(*object);
  return reply;
}

Result<DiagReply> JsonDialect::decode_diag(std::string_view body) const {
  auto object = json::parse_object(body);
  if (!object.ok()) return object.error();
  DiagReply reply;
  static_cast<ReplyBase&>(reply) = json::read_base(*object);
  const auto* statistics = object->if_contains("statistics");
  if (statistics == nullptr || !statistics->is_object()) return corrupt("the answer has no \"statistics\" object");
  if (auto seconds = json::no_val_integer(statistics->as_object().if_contains("req_time")); seconds && *seconds > 0) {
    reply.request_time = *seconds;
  }
  if (auto queued = json::no_val_integer(statistics->as_object().if_contains("dbd_agent_queue_size"))) {
    reply.dbd_agent_queue_size = *queued;
  }
  return reply;
}

Result<ConfReply> JsonDialect::decode_conf(std::string_view body) const {
  auto object = json::parse_object(body);
  if (!object.ok()) return object.error();
  ConfReply reply;
  static_cast<ReplyBase&>(reply) = json::read_base(*object);
  const auto* conf = object->if_contains("slurm_conf");
  if (conf == nullptr || !conf->is_object()) return corrupt("the answer has no \"slurm_conf\" object");
  reply.max_array_size = json::no_val_integer(conf->as_object().if_contains("MaxArraySize"));
  const auto* parameters = conf->as_object().if_contains("SchedulerParameters");
  std::vector<std::string> items;
  if (parameters != nullptr && parameters->is_array()) items = json::string_list(parameters);
  if (parameters != nullptr && parameters->is_string()) {
    const std::string_view text = parameters->as_string();
    for (std::size_t start = 0; start <= text.size();) {
      const std::size_t end = std::min(text.find(',', start), text.size());
      items.emplace_back(text.substr(start, end - start));
      start = end + 1;
    }
  }
  constexpr std::string_view kKey = "max_array_tasks=";
  for (const auto& item : items) {
    if (item.starts_with(kKey)) {
      reply.max_array_tasks = json::plain_integer_text(std::string_view(item).substr(kKey.size()));
    }
  }
  return reply;
}

}  // namespace tpslurm::slurm
