#include "reconcile/sweep.h"

#include <map>
#include <set>

#include "config/logging.h"
#include "reconcile/found_jobs.h"
#include "reconcile/journal_writer.h"
#include "reconcile/step.h"

namespace tpslurm::reconcile {
namespace {

using journal::AttemptRecord;

// "tp-<instance>-<job>-<n>" -> (job, n); the job id may itself contain dashes.
std::optional<std::pair<std::string, int>> parse_name(std::string_view name, const std::string& prefix) {
  if (!name.starts_with(prefix)) return std::nullopt;
  name.remove_prefix(prefix.size());
  const auto dash = name.rfind('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == name.size()) return std::nullopt;
  int number = 0;
  for (char c : name.substr(dash + 1)) {
    if (c < '0' || c > '9' || number > 100000) return std::nullopt;
    number = number * 10 + (c - '0');
  }
  return std::pair{std::string(name.substr(0, dash)), number};
}

bool searched_for(model::AttemptState state) {
  using model::AttemptState;
  return state == AttemptState::submit_unknown || state == AttemptState::abandoned || state == AttemptState::prepared ||
         state == AttemptState::submitting;
}

void record(Services& services, const journal::OrphanEntry& orphan) {
  Status written = services.journal.write([&](journal::Journal& j) { return j.record_orphan(orphan); });
  if (!written.ok()) config::log(config::LogLevel::warn, config::LogFields{}, "orphan: " + written.error().message());
}

bool cancel_duplicate(Services& services, const AttemptRecord& attempt, const FoundJob& copy) {
  const model::JobTag tag = tag_of(services, attempt);
  slurm::CancelResult answer = services.slurm.cancel(slurm::JobRef{copy.leader_id, copy.leader_sluid, tag, attempt.unix_user});
  const std::string words = "duplicate of Slurm job " + std::to_string(*attempt.slurm_job_id) + ": Slurm job " +
                            std::to_string(copy.leader_id) + " carries the same tag; " +
                            (answer.ok() ? "cancelled" : "cancel failed (" + answer.message + "), retried");
  config::log(config::LogLevel::warn, attempt_fields(attempt), words);
  (void)services.journal.write([&](journal::Journal& j) {
    return j.record_event(attempt.job_id, attempt.number, "duplicate",
                          {{"reason", words},
                           {"duplicate_slurm_job_id", std::to_string(copy.leader_id)},
                           {"kept_slurm_job_id", std::to_string(*attempt.slurm_job_id)}});
  });
  return answer.ok();
}

}  // namespace

SweepReport run_sweep(Services& services, CycleListing& cycle_listing) {
  SweepReport report;
  auto attempts = services.journal.read().all_attempts();
  if (!attempts.ok()) return report;
  const slurm::JobsResult& listing = cycle_listing.get();
  if (!listing.ok()) return report;
  report.listed = true;

  std::set<std::uint32_t> held_ids;
  std::map<std::pair<std::string, int>, const AttemptRecord*> by_name;
  for (const auto& a : *attempts) {
    if (a.slurm_job_id) held_ids.insert(*a.slurm_job_id);
    by_name[{a.job_id, a.number}] = &a;
  }
  const std::string prefix = "tp-" + services.settings.instance + "-";
  std::vector<model::JobSnapshot> ours;
  for (const auto& record : listing.jobs) {
    if (record.name.starts_with(prefix)) ours.push_back(record);
  }
  for (const FoundJob& job : group_found(ours, "slurmctld job list")) {
    if (held_ids.count(job.leader_id) != 0) continue;
    const model::JobSnapshot& first = job.components.front();
    auto name = parse_name(first.name, prefix);
    const AttemptRecord* attempt = nullptr;
    if (name) {
      auto it = by_name.find(*name);
      if (it != by_name.end() && tag_of(services, *it->second).identifies(first.tag())) attempt = it->second;
    }
    // Blocked, watched after a resolve, or about to be searched in safe mode: the search
    // round adopts or cancels it.
    if (attempt != nullptr && !attempt->slurm_job_id && searched_for(attempt->state)) continue;
    if (attempt != nullptr && attempt->slurm_job_id) {
      if (job.live() && cancel_duplicate(services, *attempt, job)) ++report.duplicates_cancelled;
      continue;
    }
    ++report.orphans;
    record(services, {job.leader_id, job.leader_sluid, first.name, first.comment, first.working_directory,
                      first.state.to_string(), "", ""});
  }
  return report;
}

}  // namespace tpslurm::reconcile
