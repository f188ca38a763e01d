#include "reconcile/retry_board.h"

#include <algorithm>

namespace tpslurm::reconcile {
namespace {

constexpr std::chrono::milliseconds kFirst{5000};
constexpr std::chrono::milliseconds kLongest{std::chrono::minutes(5)};

std::string key_of(const std::string& token, std::string_view what) { return token + ":" + std::string(what); }

}  // namespace

std::optional<std::chrono::milliseconds> RetryBoard::wait_left(const std::string& token, std::string_view what) const {
  const SteadyPoint now = m_clock.steady();
  std::lock_guard lock(m_mutex);
  auto it = m_entries.find(key_of(token, what));
  if (it == m_entries.end() || it->second.due <= now) return std::nullopt;
  return std::chrono::duration_cast<std::chrono::milliseconds>(it->second.due - now);
}

int RetryBoard::failed(const std::string& token, std::string_view what) {
  const SteadyPoint now = m_clock.steady();
  std::lock_guard lock(m_mutex);
  Entry& entry = m_entries[key_of(token, what)];
  ++entry.failures;
  entry.due = now + std::min(kLongest, kFirst * (1 << std::min(entry.failures - 1, 10)));
  return entry.failures;
}

void RetryBoard::forget(const std::string& token, std::string_view what) {
  std::lock_guard lock(m_mutex);
  m_entries.erase(key_of(token, what));
}

void RetryBoard::forget_attempt(const std::string& token) {
  const std::string prefix = token + ":";
  std::lock_guard lock(m_mutex);
  auto it = m_entries.lower_bound(prefix);
  while (it != m_entries.end() && it->first.compare(0, prefix.size(), prefix) == 0) it = m_entries.erase(it);
}

std::size_t RetryBoard::size() const {
  std::lock_guard lock(m_mutex);
  return m_entries.size();
}

}  // namespace tpslurm::reconcile
