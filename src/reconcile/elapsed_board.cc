#include "reconcile/elapsed_board.h"

#include <algorithm>

namespace tpslurm::reconcile {

std::chrono::seconds ElapsedBoard::since(const std::string& key, TimePoint since) {
  const SteadyPoint steady = m_clock.steady();
  std::lock_guard lock(m_mutex);
  auto it = m_entries.find(key);
  if (it == m_entries.end()) {
    const auto wall = std::chrono::duration_cast<std::chrono::seconds>(m_clock.now() - since);
    it = m_entries.emplace(key, Entry{std::max(wall, std::chrono::seconds(0)), steady, steady}).first;
  }
  it->second.last_asked = steady;
  return it->second.at_first_sight + std::chrono::duration_cast<std::chrono::seconds>(steady - it->second.first_sight);
}

void ElapsedBoard::forget_idle(std::chrono::seconds idle) {
  const SteadyPoint steady = m_clock.steady();
  std::lock_guard lock(m_mutex);
  std::erase_if(m_entries, [&](const auto& entry) { return steady - entry.second.last_asked > idle; });
}

std::size_t ElapsedBoard::size() const {
  std::lock_guard lock(m_mutex);
  return m_entries.size();
}

}  // namespace tpslurm::reconcile
