// What an ended attempt used (model/usage.h), read once from slurmdbd while its cleanup seals
// the logs and journaled with the attempt: each component's elapsed time and allocation, and
// the GPU series its pool asked for. Without accounting the attempt says so; when slurmdbd has
// no record or does not answer after kUsageTries spaced tries (the record can lag the end by
// slurmctld's DBD agent queue), the attempt says that, and its cleanup goes on: usage never
// holds a retry or a release back for long.
#include <boost/json.hpp>

#include "model/usage.h"
#include "reconcile/retry_board.h"
#include "reconcile/steps.h"

namespace tpslurm::reconcile {
namespace {

constexpr std::string_view kWhat = "usage";
constexpr int kUsageTries = 4;  // 5 s, 10 s and 20 s apart (RetryBoard)

// The GPU series of each of the request's pools, in order (a het job has one component per
// pool); empty for a CPU-only pool or a request that does not say.
std::vector<std::string> pool_gpu_series(const journal::JobRecord& job) {
  std::vector<std::string> out;
  boost::json::error_code ec;
  const boost::json::value request = boost::json::parse(job.request_json, ec);
  if (ec) return out;
  const boost::json::value* pools = request.is_object() ? request.as_object().if_contains("spec") : nullptr;
  pools = pools != nullptr && pools->is_object() ? pools->as_object().if_contains("pools") : nullptr;
  if (pools == nullptr || !pools->is_array()) return out;
  for (const auto& pool : pools->as_array()) {
    const boost::json::value* series = pool.is_object() ? pool.as_object().if_contains("gpu_series") : nullptr;
    out.push_back(series != nullptr && series->is_string() ? std::string(series->as_string()) : std::string());
  }
  return out;
}

// The attempt's own components among slurmdbd's records of its tag.
model::AttemptUsage usage_of(const Step& step, const std::vector<model::JobSnapshot>& records) {
  model::AttemptUsage usage;
  const std::uint32_t leader = step.attempt.slurm_job_id.value_or(0);
  const std::vector<std::string> series = pool_gpu_series(step.job);
  for (const auto& r : records) {
    if (r.job_id != leader && r.het_job_id.value_or(0) != leader) continue;
    const std::size_t offset = r.het_job_offset.value_or(0);
    usage.components.push_back({static_cast<int>(offset), r.partition, offset < series.size() ? series[offset] : "",
                                r.allocation.value_or(model::Allocation{})});
  }
  return usage;
}

}  // namespace

StepEnd read_usage(Step& step) {
  if (step.not_due(kWhat) || step.budget_refuses()) return StepEnd::wait;
  const TimePoint since = parse_utc(step.attempt.intent_at).value_or(step.services.clock.now());
  const slurm::UsageResult read =
      step.services.slurm.job_usage(tag_of(step.services, step.attempt), since, step.attempt.unix_user);
  model::AttemptUsage usage;
  if (read.ok() && read.accounting_off) {
    usage.none = std::string(model::kAccountingOff);
  } else if (read.ok()) {
    usage = usage_of(step, read.records);
  }
  if (usage.none.empty() && usage.components.empty()) {
    if (step.services.retries.failed(step.attempt.submit_token, kWhat) < kUsageTries) {
      step.result.look_again = step.services.retries.wait_left(step.attempt.submit_token, kWhat);
      return StepEnd::wait;
    }
    usage.none = read.ok() ? "slurmdbd has no record of it" : "slurmdbd did not answer: " + read.message;
  }
  journal::AttemptChanges changes;
  changes.usage = model::usage_json(usage);
  const std::string words = model::usage_words(usage);
  StepEnd end = step.update("usage", changes, {{"reason", words}});
  if (end == StepEnd::next) {
    step.attempt.usage = *changes.usage;
    if (step.services.metrics != nullptr) {
      for (const auto& c : usage.components) {
        const model::AttemptUsage one{{}, {c}};
        step.services.metrics->count_usage(c.partition, c.gpu_series, one.gpu_hours(), one.cpu_hours());
      }
    }
  }
  return end;
}

}  // namespace tpslurm::reconcile
