// WorkSlice: how much of a long piece of work on an attempt's files one call may do before it
// gives its thread back — the seal of logs/ (log_seal.h), the removal of scratch/ or of the
// whole attempt directory (attempt_removal.h).
//
// The job decides how large that work is: a sparse 100 GiB log costs it no disk, a million
// files or a tree thousands of directories deep a few seconds. So the daemon never does such
// work in one go: each call does at most one slice and says whether it finished; the caller
// continues later (the attempt's next pass, the next retention turn), by which time the other
// jobs have had the thread.
//
// A slice is spent once it has read `bytes` (hashed), handled `entries` directory entries
// (listed, removed or moved), lasted `time` on the clock's steady() since it was made, or when
// its stop token says stop (SIGTERM: the daemon stops within one slice, not one seal). Work
// asks spent() after each unit it did (a read, an entry), so every call makes some progress;
// where a unit of its own may be cut short it asks stop_requested() alone. A slice without a
// clock has no time limit; unlimited() has none at all, for callers that must finish in one
// call (an operator's command, tests).
//
// Not thread-safe: one slice belongs to one call on one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <stop_token>

#include "base/clock.h"

namespace tpslurm::storage {

struct SliceLimits {
  std::uint64_t bytes = std::uint64_t{64} << 20;
  std::uint64_t entries = 10'000;
  std::chrono::milliseconds time{250};
};

class WorkSlice {
 public:
  // `clock` may be null: no time limit. The slice begins now.
  WorkSlice(const Clock* clock, SliceLimits limits, std::stop_token stop = {});
  static WorkSlice unlimited(std::stop_token stop = {});

  void add_bytes(std::uint64_t n) { m_bytes += n; }
  void add_entries(std::uint64_t n = 1) { m_entries += n; }

  bool spent() const;
  bool stop_requested() const { return m_stop.stop_requested(); }

  std::uint64_t bytes() const { return m_bytes; }
  std::uint64_t entries() const { return m_entries; }

 private:
  const Clock* m_clock;
  SliceLimits m_limits;
  std::stop_token m_stop;
  SteadyPoint m_began{};
  std::uint64_t m_bytes = 0;
  std::uint64_t m_entries = 0;
};

}  // namespace tpslurm::storage
