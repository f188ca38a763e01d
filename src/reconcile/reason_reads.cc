#include "reconcile/reason_reads.h"

#include <algorithm>

namespace tpslurm::reconcile {

ReasonPlan ReasonReads::plan(const std::vector<PendingWait>& pending, SteadyPoint now) const {
  // The due attempts, longest unread first (never read: first of all).
  std::vector<std::pair<std::optional<SteadyPoint>, const std::string*>> due;
  for (const auto& wait : pending) {
    const auto it = m_read.find(wait.token);
    if (it == m_read.end()) {
      due.emplace_back(std::nullopt, &wait.token);
      continue;
    }
    const auto every = wait.explained ? kExplainedEvery : kUnexplainedEvery;
    if (now - it->second >= every) due.emplace_back(it->second, &wait.token);
  }
  ReasonPlan plan;
  if (due.empty()) return plan;
  if (due.size() > kReadsPerPoll && (!m_listed || now - *m_listed >= kExplainedEvery)) {
    plan.listing = true;
    return plan;
  }
  std::stable_sort(due.begin(), due.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 0; i < due.size() && i < kReadsPerPoll; ++i) plan.alone.insert(*due[i].second);
  return plan;
}

void ReasonReads::keep_only(const std::set<std::string>& followed) {
  std::erase_if(m_read, [&](const auto& entry) { return followed.count(entry.first) == 0; });
}

}  // namespace tpslurm::reconcile
