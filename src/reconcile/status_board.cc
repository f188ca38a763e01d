#include "reconcile/status_board.h"

namespace tpslurm::reconcile {

void StatusBoard::post(const std::string& token, StatusEntry entry) {
  std::lock_guard lock(m_mutex);
  m_entries[token] = std::move(entry);
}

std::optional<StatusEntry> StatusBoard::take(const std::string& token) {
  std::lock_guard lock(m_mutex);
  auto it = m_entries.find(token);
  if (it == m_entries.end()) return std::nullopt;
  StatusEntry out = std::move(it->second);
  m_entries.erase(it);
  return out;
}

void StatusBoard::seen(const std::string& token, TimePoint at) {
  std::lock_guard lock(m_mutex);
  m_seen[token] = at;
}

std::chrono::seconds StatusBoard::lag(const std::vector<std::string>& tokens, TimePoint now) const {
  std::lock_guard lock(m_mutex);
  std::chrono::seconds worst{0};
  for (const auto& token : tokens) {
    auto it = m_seen.find(token);
    if (it == m_seen.end()) continue;
    worst = std::max(worst, std::chrono::duration_cast<std::chrono::seconds>(now - it->second));
  }
  return worst;
}

void StatusBoard::forget(const std::string& token) {
  std::lock_guard lock(m_mutex);
  m_entries.erase(token);
  m_seen.erase(token);
  m_id_reused.erase(token);
  std::erase_if(m_warned, [&](const std::string& key) { return key.rfind(token, 0) == 0; });
}

void StatusBoard::note_id_reused(const std::string& token, const std::string& words) {
  std::lock_guard lock(m_mutex);
  m_id_reused.emplace(token, words);
}

std::optional<std::string> StatusBoard::id_reused(const std::string& token) const {
  std::lock_guard lock(m_mutex);
  auto it = m_id_reused.find(token);
  if (it == m_id_reused.end()) return std::nullopt;
  return it->second;
}

bool StatusBoard::warn_once(const std::string& key) {
  std::lock_guard lock(m_mutex);
  return m_warned.insert(key).second;
}

}  // namespace tpslurm::reconcile
