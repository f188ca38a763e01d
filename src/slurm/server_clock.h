// ServerClock: what time it is on slurmctld's clock, as far as this client can prove.
//
// Two questions depend on the server's clock rather than ours: the start of slurmdbd's
// search window ("the intent time minus a day, on the server's clock") and the `update_time`
// baseline of 22.05's bulk poll (a baseline later than the server's own time of the last
// answer would hide a change). Both need a time that is never LATER than the truth, so this
// keeps the lowest offset consistent with what was observed.
//
// An observation is a server timestamp in whole seconds (diag's `req_time`) taken while a
// request was in flight, and the local time its answer was `received`: the server's time then
// was at least `seconds` and the local time at most `received`, so the offset (server minus
// local) is at least `seconds - received`. Only the latest observation counts (clocks are
// stepped). Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>

#include "base/clock.h"

namespace tpslurm::slurm {

class ServerClock {
 public:
  explicit ServerClock(const Clock& local) : m_local(local) {}

  void observe(std::int64_t server_seconds, TimePoint received);
  // When the last observation was made (local clock); empty before the first.
  std::optional<TimePoint> observed_at() const;
  // The earliest the server's clock can read at local time `local`; empty before the first
  // observation.
  std::optional<TimePoint> earliest(TimePoint local) const;
  // The same for now.
  std::optional<TimePoint> earliest_now() const { return earliest(m_local.now()); }
  // Server minus local, lower bound; empty before the first observation.
  std::optional<std::chrono::milliseconds> offset() const;

  const Clock& local() const { return m_local; }

 private:
  const Clock& m_local;
  mutable std::mutex m_mutex;
  std::optional<std::chrono::milliseconds> m_offset;
  std::optional<TimePoint> m_observed_at;
};

}  // namespace tpslurm::slurm
