#include "storage/work_slice.h"

#include <limits>

namespace tpslurm::storage {

WorkSlice::WorkSlice(const Clock* clock, SliceLimits limits, std::stop_token stop)
    : m_clock(clock), m_limits(limits), m_stop(std::move(stop)) {
  if (m_clock != nullptr) m_began = m_clock->steady();
}

WorkSlice WorkSlice::unlimited(std::stop_token stop) {
  constexpr auto kAll = std::numeric_limits<std::uint64_t>::max();
  return WorkSlice(nullptr, {kAll, kAll, std::chrono::milliseconds::max()}, std::move(stop));
}

bool WorkSlice::spent() const {
  if (m_stop.stop_requested() || m_bytes >= m_limits.bytes || m_entries >= m_limits.entries) return true;
  return m_clock != nullptr && m_clock->steady() - m_began >= m_limits.time;
}

}  // namespace tpslurm::storage
