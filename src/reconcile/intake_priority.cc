#include "reconcile/intake_priority.h"

#include <algorithm>

namespace tpslurm::reconcile {

void IntakePriority::noted(SteadyPoint at) {
  std::lock_guard lock(m_mutex);
  if (!m_noted || at > m_last + kQuiet) m_began = at;
  m_noted = true;
  m_last = at;
}

std::optional<std::chrono::milliseconds> IntakePriority::holding_for(SteadyPoint now) const {
  std::lock_guard lock(m_mutex);
  if (!m_noted || now >= m_last + kQuiet) return std::nullopt;
  // Alternating from the run's first batch on: kLongest held, kLongest for the passes.
  const auto into = std::chrono::duration_cast<std::chrono::milliseconds>(now - m_began) % (2 * kLongest);
  if (into >= kLongest) return std::nullopt;
  const auto quiet_in = std::chrono::duration_cast<std::chrono::milliseconds>(m_last + kQuiet - now);
  return std::min(quiet_in, kLongest - into);
}

}  // namespace tpslurm::reconcile
