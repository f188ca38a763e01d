#include "reconcile/found_jobs.h"

#include <algorithm>
#include <boost/json.hpp>
#include <map>

namespace tpslurm::reconcile {
namespace {

std::uint32_t leader_of(const model::JobSnapshot& job) { return job.het_job_id.value_or(job.job_id); }

}  // namespace

bool FoundJob::live() const {
  return std::any_of(components.begin(), components.end(),
                     [](const model::JobSnapshot& c) { return !c.state.base_is_final(); });
}

bool ran(const model::JobSnapshot& record) {
  if (record.state.base == model::SlurmBaseState::running || record.state.base == model::SlurmBaseState::suspended) {
    return true;
  }
  // slurmdbd's word for a job that never had nodes.
  return !record.nodes.empty() && record.nodes != "None assigned";
}

bool FoundJob::started() const { return std::any_of(components.begin(), components.end(), ran); }

std::size_t copy_to_keep(const std::vector<FoundJob>& found) {
  for (std::size_t i = 0; i < found.size(); ++i) {
    if (found[i].started()) return i;
  }
  for (std::size_t i = 0; i < found.size(); ++i) {
    if (found[i].live()) return i;
  }
  return found.size();
}

std::vector<FoundJob> group_found(const std::vector<model::JobSnapshot>& records, const std::string& source) {
  std::map<std::uint32_t, FoundJob> groups;
  for (const auto& record : records) {
    FoundJob& group = groups[leader_of(record)];
    group.leader_id = leader_of(record);
    group.source = source;
    // slurmctld's record wins over slurmdbd's for the same component.
    const bool known = std::any_of(group.components.begin(), group.components.end(),
                                   [&](const model::JobSnapshot& c) { return c.job_id == record.job_id; });
    if (known) continue;
    group.components.push_back(record);
    if (record.job_id == group.leader_id) group.leader_sluid = record.sluid;
  }
  std::vector<FoundJob> out;
  for (auto& [id, group] : groups) {
    std::sort(group.components.begin(), group.components.end(),
              [](const auto& a, const auto& b) { return a.het_job_offset.value_or(0) < b.het_job_offset.value_or(0); });
    out.push_back(std::move(group));
  }
  return out;
}

std::vector<FoundJob> group_matches(const std::vector<slurm::SearchMatch>& matches) {
  std::vector<model::JobSnapshot> records;
  std::string source;
  for (const auto& match : matches) {
    records.push_back(match.job);
    if (source.empty()) source = std::string(slurm::to_string(match.source));
  }
  auto groups = group_found(records, source);
  for (auto& group : groups) {
    for (const auto& match : matches) {
      if (leader_of(match.job) == group.leader_id) {
        group.source = std::string(slurm::to_string(match.source));
        break;
      }
    }
  }
  return groups;
}

}  // namespace tpslurm::reconcile
