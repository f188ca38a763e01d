#include "slurm/server_clock.h"

namespace tpslurm::slurm {

void ServerClock::observe(std::int64_t server_seconds, TimePoint received) {
  const auto offset = std::chrono::duration_cast<std::chrono::milliseconds>(from_unix_seconds(server_seconds) - received);
  std::lock_guard lock(m_mutex);
  m_offset = offset;
  m_observed_at = received;
}

std::optional<TimePoint> ServerClock::observed_at() const {
  std::lock_guard lock(m_mutex);
  return m_observed_at;
}

std::optional<TimePoint> ServerClock::earliest(TimePoint local) const {
  std::lock_guard lock(m_mutex);
  if (!m_offset) return std::nullopt;
  return local + *m_offset;
}

std::optional<std::chrono::milliseconds> ServerClock::offset() const {
  std::lock_guard lock(m_mutex);
  return m_offset;
}

}  // namespace tpslurm::slurm
