// SimClock: the simulated cluster's time.
//
// By default it follows the wall clock (through base's SystemClock). With manual mode
// (`--manual-clock`) time starts at a fixed instant and moves only when the control API
// advances or sets it, so tests drive job timings and purges without sleeping. Only the
// simulated cluster's notion of time lives here; network delays injected as faults are
// real time (they exist to outlast a client's timeout). Used from the server's single
// I/O thread only; not thread-safe.
#pragma once

#include <cstdint>

#include "base/clock.h"

namespace tpslurm::sim {

class SimClock {
 public:
  // Real time.
  SimClock() = default;
  // Manual time starting at `start_ms` (Unix milliseconds).
  explicit SimClock(std::int64_t start_ms) : m_manual(true), m_manual_ms(start_ms) {}

  bool manual() const { return m_manual; }
  std::int64_t now_ms() const;
  std::int64_t now_s() const { return now_ms() / 1000; }

  // Manual mode only; moving backwards is refused (false).
  bool advance_ms(std::int64_t delta_ms);
  bool set_ms(std::int64_t unix_ms);

 private:
  bool m_manual = false;
  std::int64_t m_manual_ms = 0;
  SystemClock m_system;
};

}  // namespace tpslurm::sim
