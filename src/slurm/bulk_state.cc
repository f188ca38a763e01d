#include "slurm/bulk_state.h"

#include <algorithm>
#include <set>

namespace tpslurm::slurm {
namespace {

void sort_unique(std::vector<std::uint32_t>& ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
}

// Asked ids absent from every answer go to not_reported; the rest were reported.
void settle_not_reported(BulkStateResult& result, const std::vector<std::uint32_t>& answered_ids) {
  std::set<std::uint32_t> reported;
  for (const auto& entry : result.states) reported.insert(entry.job_id);
  for (std::uint32_t id : answered_ids) {
    if (!reported.contains(id)) result.not_reported.push_back(id);
  }
  sort_unique(result.not_reported);
  sort_unique(result.unanswered);
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
  std::set<std::uint32_t> seen;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const auto& batch = calls[i];
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
      // Stop at the first failure: a struggling server gets no more calls from this poll.
      for (std::size_t j = i; j < calls.size(); ++j) {
        result.unanswered.insert(result.unanswered.end(), calls[j].begin(), calls[j].end());
      }
      static_cast<CallResult&>(result) = call;
      break;
    }
    result.release = call.release;
    result.http_status = call.http_status;
    result.warnings.insert(result.warnings.end(), call.warnings.begin(), call.warnings.end());
    answered_ids.insert(answered_ids.end(), batch.begin(), batch.end());
    // A leader asked with one of its components reports that component twice (26.05.3).
    for (auto& entry : reply->entries) {
      if (seen.insert(entry.job_id).second) result.states.push_back(std::move(entry));
    }
  }
  std::sort(result.states.begin(), result.states.end(),
            [](const JobStateEntry& a, const JobStateEntry& b) { return a.job_id < b.job_id; });
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
    const bool wanted_job = asked.contains(job.job_id) || (job.het_job_id && asked.contains(*job.het_job_id));
    if (!wanted_job || !seen.insert(job.job_id).second) continue;
    result.states.push_back({job.job_id, job.het_job_offset, job.state});
    result.records.push_back(std::move(job));
  }
  std::sort(result.states.begin(), result.states.end(),
            [](const JobStateEntry& a, const JobStateEntry& b) { return a.job_id < b.job_id; });
  std::sort(result.records.begin(), result.records.end(),
            [](const model::JobSnapshot& a, const model::JobSnapshot& b) { return a.job_id < b.job_id; });
  settle_not_reported(result, wanted);
  return result;
}

}  // namespace tpslurm::slurm
