#include "reconcile/slice_board.h"

namespace tpslurm::reconcile {

SlicedWork SliceBoard::take(const std::string& token, model::CleanupStep step) {
  std::lock_guard lock(m_mutex);
  auto found = m_entries.find(token);
  if (found == m_entries.end()) return SlicedWork{step, nullptr, 0, 0};
  SlicedWork work = std::move(found->second.work);
  m_entries.erase(found);
  if (work.step != step) return SlicedWork{step, nullptr, 0, 0};
  return work;
}

void SliceBoard::put(const std::string& token, SlicedWork work) {
  std::lock_guard lock(m_mutex);
  m_entries[token] = Entry{std::move(work), m_clock.steady()};
}

void SliceBoard::forget_idle(std::chrono::seconds idle) {
  std::lock_guard lock(m_mutex);
  const SteadyPoint now = m_clock.steady();
  std::erase_if(m_entries, [&](const auto& entry) { return now - entry.second.put_at > idle; });
}

std::size_t SliceBoard::size() const {
  std::lock_guard lock(m_mutex);
  return m_entries.size();
}

}  // namespace tpslurm::reconcile
