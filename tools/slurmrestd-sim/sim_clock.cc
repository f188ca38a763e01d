#include "sim_clock.h"

#include <chrono>

namespace tpslurm::sim {

std::int64_t SimClock::now_ms() const {
  if (m_manual) return m_manual_ms;
  return std::chrono::duration_cast<std::chrono::milliseconds>(m_system.now().time_since_epoch()).count();
}

bool SimClock::advance_ms(std::int64_t delta_ms) {
  if (!m_manual || delta_ms < 0) return false;
  m_manual_ms += delta_ms;
  return true;
}

bool SimClock::set_ms(std::int64_t unix_ms) {
  if (!m_manual || unix_ms < m_manual_ms) return false;
  m_manual_ms = unix_ms;
  return true;
}

}  // namespace tpslurm::sim
