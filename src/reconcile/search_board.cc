#include "reconcile/search_board.h"

namespace tpslurm::reconcile {

void SearchBoard::put(const std::string& token, slurm::SearchResult result, TimePoint at) {
  std::lock_guard lock(m_mutex);
  m_entries.insert_or_assign(token, SearchEntry{std::move(result), at});
}

std::optional<SearchEntry> SearchBoard::get(const std::string& token) const {
  std::lock_guard lock(m_mutex);
  auto it = m_entries.find(token);
  if (it == m_entries.end()) return std::nullopt;
  return it->second;
}

void SearchBoard::forget(const std::string& token) {
  std::lock_guard lock(m_mutex);
  m_entries.erase(token);
}

}  // namespace tpslurm::reconcile
