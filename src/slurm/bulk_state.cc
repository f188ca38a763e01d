#include "slurm/bulk_state.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "model/job_array.h"

namespace tpslurm::slurm {
namespace {

void sort_unique(std::vector<std::uint32_t>& ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
}

// Asked ids absent from every answer go to not_reported; the rest were reported.
void settle_not_reported(BulkStateResult& result, const std::vector<std::uint32_t>& answered_ids) {
  std::set<std::uint32_t> reported;
  for (const auto& entry : result.states) {
    reported.insert(entry.job_id);
    if (entry.array_job_id) reported.insert(*entry.array_job_id);
  }
  for (std::uint32_t id : answered_ids) {
    if (!reported.contains(id)) result.not_reported.push_back(id);
  }
  sort_unique(result.not_reported);
  sort_unique(result.unanswered);
}

// Sorted by job id, then task.
void sort_entries(std::vector<JobStateEntry>& entries) {
  std::sort(entries.begin(), entries.end(), [](const JobStateEntry& a, const JobStateEntry& b) {
    return std::tuple(a.job_id, a.array_task_id.value_or(0), a.het_job_offset.value_or(0)) <
           std::tuple(b.job_id, b.array_task_id.value_or(0), b.het_job_offset.value_or(0));
  });
}

// What makes two entries the same report: the record, its component and its task.
std::tuple<std::uint32_t, std::uint32_t, std::uint32_t> entry_key(const JobStateEntry& entry) {
  constexpr std::uint32_t kNone = 0xffffffffu;
  return {entry.job_id, entry.het_job_offset.value_or(kNone), entry.array_task_id.value_or(kNone)};
}

// An array entry whose master is not known yet (array_job_id 0: settle_array_entries).
bool unsettled(const JobStateEntry& entry) { return entry.array_job_id == 0u; }

// One jobs/state call; the reply, or empty with `result` holding the failure.
std::optional<JobsStateReply> ask_jobs_state(RestCaller& caller, const Dialect& codec,
                                             std::span<const std::uint32_t> batch, BulkStateResult& result) {
  RestCaller::Sent sent = caller.send(HttpMethod::get, codec.jobs_state_path(batch));
  CallResult call;
  std::optional<JobsStateReply> reply;
  if (!caller.refused(call, sent, codec.version())) {
    ++result.calls;
    reply = caller.read(call, sent, codec, &Dialect::decode_jobs_state);
  }
  if (call.outcome != Outcome::ok || !reply) {
    if (call.outcome == Outcome::ok) {
      call.outcome = Outcome::uncertain;
      call.message = sent.label + ": HTTP " + std::to_string(call.http_status) + " without a \"jobs\" list";
    }
    static_cast<CallResult&>(result) = call;
    return std::nullopt;
  }
  result.release = call.release;
  result.http_status = call.http_status;
  result.warnings.insert(result.warnings.end(), call.warnings.begin(), call.warnings.end());
  return reply;
}

// Array entries of one answer to `batch`: an entry named by an asked id is that master's (its
// pending tasks, or its last task); an entry named by another id is a task split off one of
// the asked masters, settled here when the answer holds exactly one array, else marked with
// array_job_id 0. Returns the asked ids that answered as arrays.
std::vector<std::uint32_t> settle_array_entries(std::vector<JobStateEntry>& entries,
                                                std::span<const std::uint32_t> batch) {
  std::set<std::uint32_t> masters;
  for (auto& entry : entries) {
    if (!entry.array_job_id) continue;
    if (std::binary_search(batch.begin(), batch.end(), entry.job_id)) {
      masters.insert(entry.job_id);
    } else {
      entry.array_job_id = 0u;
    }
  }
  for (auto& entry : entries) {
    if (!unsettled(entry)) continue;
    if (masters.size() == 1) entry.array_job_id = *masters.begin();
    if (masters.empty()) entry.array_job_id.reset();  // no asked array brought it: master unknown
  }
  return {masters.begin(), masters.end()};
}

// A full record's entries: one, or one per pending task of an array's meta record (its
// array_task_string read by model::parse_array_task_string; a cut or unreadable string makes
// the master incomplete, and a meta record without pending tasks is one entry without a task).
void add_record_entries(const model::JobSnapshot& job, BulkStateResult& result) {
  JobStateEntry entry{job.job_id, job.het_job_offset, job.state, job.array_job_id, job.array_task_id};
  const bool meta = job.array_job_id && !job.array_task_id;
  if (!meta || job.array_task_string.empty()) {
    result.states.push_back(entry);
    return;
  }
  auto pending = model::parse_array_task_string(job.array_task_string);
  if (!pending.ok() || !pending->complete) result.incomplete_arrays.push_back(*job.array_job_id);
  if (!pending.ok() || pending->tasks.empty()) {
    result.states.push_back(entry);
    return;
  }
  for (std::uint32_t task : pending->tasks) {
    entry.array_task_id = task;
    result.states.push_back(entry);
  }
}

}  // namespace

Status BulkLimits::check() const {
  if (max_ids_per_call == 0) return invalid_argument("bulk state: max_ids_per_call must be at least 1");
  if (max_target_bytes == 0) return invalid_argument("bulk state: max_target_bytes must be at least 1");
  return ok_status();
}

std::vector<std::uint32_t> normalize_ids(std::span<const std::uint32_t> ids) {
  std::vector<std::uint32_t> out;
  out.reserve(ids.size());
  for (std::uint32_t id : ids) {
    if (id != 0) out.push_back(id);
  }
  sort_unique(out);
  return out;
}

std::vector<std::vector<std::uint32_t>> plan_jobs_state_calls(const Dialect& codec, std::span<const std::uint32_t> ids,
                                                              const BulkLimits& limits) {
  std::vector<std::vector<std::uint32_t>> calls;
  const std::vector<std::uint32_t> wanted = normalize_ids(ids);
  // "?job_id=" and "&job_id=" are the same length, so each id costs 8 bytes plus its digits.
  const std::size_t base = codec.jobs_state_path({}).size();
  std::vector<std::uint32_t> batch;
  std::size_t length = base;
  for (std::uint32_t id : wanted) {
    const std::size_t cost = 8 + std::to_string(id).size();
    if (!batch.empty() && (batch.size() >= limits.max_ids_per_call || length + cost > limits.max_target_bytes)) {
      calls.push_back(std::move(batch));
      batch.clear();
      length = base;
    }
    batch.push_back(id);
    length += cost;
  }
  if (!batch.empty()) calls.push_back(std::move(batch));
  return calls;
}

BulkStateResult poll_jobs_state(RestCaller& caller, const Dialect& codec, std::span<const std::uint32_t> ids,
                                const BulkLimits& limits) {
  BulkStateResult result;
  result.outcome = Outcome::ok;
  result.dialect = std::string(codec.version());
  const auto calls = plan_jobs_state_calls(codec, ids, limits);
  std::vector<std::uint32_t> answered_ids;
  std::vector<std::uint32_t> ask_alone;  // masters whose split tasks shared a call with another array
  std::vector<JobStateEntry> entries;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const auto& batch = calls[i];
    auto reply = ask_jobs_state(caller, codec, batch, result);
    if (!reply) {
      // Stop at the first failure: a struggling server gets no more calls from this poll.
      for (std::size_t j = i; j < calls.size(); ++j) {
        result.unanswered.insert(result.unanswered.end(), calls[j].begin(), calls[j].end());
      }
      break;
    }
    answered_ids.insert(answered_ids.end(), batch.begin(), batch.end());
    const std::vector<std::uint32_t> masters = settle_array_entries(reply->entries, batch);
    if (masters.size() > 1 && std::any_of(reply->entries.begin(), reply->entries.end(), unsettled)) {
      // The answer does not say which array each split task belongs to: ask each master alone.
      std::erase_if(reply->entries, [](const JobStateEntry& e) { return e.array_job_id.has_value(); });
      ask_alone.insert(ask_alone.end(), masters.begin(), masters.end());
    }
    entries.insert(entries.end(), reply->entries.begin(), reply->entries.end());
  }
  for (std::uint32_t master : ask_alone) {
    if (!result.ok()) {
      result.unanswered.push_back(master);
      std::erase(answered_ids, master);
      continue;
    }
    auto reply = ask_jobs_state(caller, codec, std::vector<std::uint32_t>{master}, result);
    if (!reply) {
      result.unanswered.push_back(master);
      std::erase(answered_ids, master);
      continue;
    }
    for (auto& entry : reply->entries) {
      if (!entry.array_job_id) continue;
      entry.array_job_id = master;
      entries.push_back(std::move(entry));
    }
  }
  // A leader asked with one of its components reports that component twice (26.05.3).
  std::set<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> seen;
  for (auto& entry : entries) {
    if (seen.insert(entry_key(entry)).second) result.states.push_back(std::move(entry));
  }
  sort_entries(result.states);
  // A failure above replaced the result's base fields; the counts stay.
  settle_not_reported(result, answered_ids);
  return result;
}

BulkStateResult poll_update_time(RestCaller& caller, const Dialect& codec, std::span<const std::uint32_t> ids,
                                 std::optional<TimePoint> since, const ServerClock& clock) {
  BulkStateResult result;
  result.dialect = std::string(codec.version());
  const std::vector<std::uint32_t> wanted = normalize_ids(ids);
  if (wanted.empty()) {
    result.outcome = Outcome::ok;
    return result;
  }
  // Read before sending: the answer reflects the server at some later moment.
  std::optional<TimePoint> baseline = clock.earliest_now();
  std::optional<std::int64_t> seconds;
  if (since) seconds = unix_seconds(*since);
  // 22.05 answers with every job of every user: read as it arrives, never held whole.
  std::unique_ptr<JobsDecoder> decoder = codec.jobs_decoder(RecordSource::slurmctld);
  RestCaller::Sent sent = caller.send_listing(codec.jobs_path(seconds), *decoder);
  if (caller.refused(result, sent, codec.version())) {
    result.unanswered = wanted;
    return result;
  }
  ++result.calls;
  std::optional<JobsReply> reply = caller.read(result, sent, codec, *decoder);
  const bool unchanged = result.ok() && codec.unchanged(result.http_status, reply ? &*reply : nullptr);
  if (!result.ok() || (!reply && !unchanged)) {
    if (result.ok()) {
      result.outcome = Outcome::uncertain;
      result.message = sent.label + ": HTTP " + std::to_string(result.http_status) + " without a \"jobs\" list";
    }
    result.unanswered = wanted;
    return result;
  }
  if (baseline) result.next_since = from_unix_seconds(unix_seconds(*baseline) - 1);
  if (unchanged) {
    result.unchanged = true;
    result.message.clear();
    return result;
  }
  const std::set<std::uint32_t> asked(wanted.begin(), wanted.end());
  std::set<std::uint32_t> seen;
  for (auto& job : reply->jobs) {
    const bool wanted_job = asked.contains(job.job_id) || (job.het_job_id && asked.contains(*job.het_job_id)) ||
                            (job.array_job_id && asked.contains(*job.array_job_id));
    if (!wanted_job || !seen.insert(job.job_id).second) continue;
    add_record_entries(job, result);
    result.records.push_back(std::move(job));
  }
  sort_entries(result.states);
  std::sort(result.records.begin(), result.records.end(),
            [](const model::JobSnapshot& a, const model::JobSnapshot& b) { return a.job_id < b.job_id; });
  std::sort(result.incomplete_arrays.begin(), result.incomplete_arrays.end());
  settle_not_reported(result, wanted);
  return result;
}

}  // namespace tpslurm::slurm
