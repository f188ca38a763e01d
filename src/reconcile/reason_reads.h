// ReasonReads: which pending attempts' records the status poll reads for why they wait
// (status_round.h). A bulk state has ids and states only; a reason and an expected start come
// from a job's record (`get_job`) or from the cycle's full listing (every record, one call).
//   - An attempt Slurm has given no reason yet ("None": its scheduler has not looked at it) is
//     read kUnexplainedEvery after its last read, so its first reason shows within a poll or two
//     of Slurm having one; one with a reason, which changes as the cluster does, kExplainedEvery
//     after. An attempt never read (a restart) is due at once.
//   - When more than kReadsPerPoll are due, the full listing is read instead (one call answers
//     for all of them), at most once per kExplainedEvery; between two listings the
//     kReadsPerPoll longest unread are read alone. So a poll costs at most kReadsPerPoll reads
//     or one listing, whatever the number of pending attempts.
// Times are the monotonic clock's (Clock::steady). One status round uses it at a time.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/clock.h"

namespace tpslurm::reconcile {

inline constexpr std::chrono::seconds kUnexplainedEvery{20};
inline constexpr std::chrono::seconds kExplainedEvery{60};
inline constexpr std::size_t kReadsPerPoll = 8;

// A pending attempt, by its submit token; `explained`: its journaled record has a reason.
struct PendingWait {
  std::string token;
  bool explained = false;
};

// What one poll reads: the full listing, or the records of `alone` one by one.
struct ReasonPlan {
  bool listing = false;
  std::set<std::string> alone;
};

class ReasonReads {
 public:
  ReasonPlan plan(const std::vector<PendingWait>& pending, SteadyPoint now) const;
  // A record of the attempt was read (alone, or in a listing or a bulk answer that had records).
  void read(const std::string& token, SteadyPoint now) { m_read[token] = now; }
  // The full listing was read.
  void listed(SteadyPoint now) { m_listed = now; }
  // Forgets the attempts not in `followed` (no longer followed: ended and cleaned up).
  void keep_only(const std::set<std::string>& followed);

 private:
  std::map<std::string, SteadyPoint> m_read;
  std::optional<SteadyPoint> m_listed;
};

}  // namespace tpslurm::reconcile
