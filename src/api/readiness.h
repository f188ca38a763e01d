// Readiness: what GET /readyz answers — whether this `serve` can do its work now, each check
// named:
//   journal     a write can begin (Journal::probe_write) and its filesystem has at least 1 MiB free
//   slurmrestd  the pre-flight call (SlurmClient::preflight) got an answer
//   token       slurmrestd accepted the token in that call (not `auth`)
//   paused      submitting is not paused (`pause`)
// The pre-flight's answer is reused for `kReuseFor`, so frequent probes cost slurmrestd at most
// one call per interval. check() blocks on that call (run it as deferred work, exchange.h).
// Thread-safe.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "api/exchange.h"
#include "journal/journal.h"
#include "slurm/slurm_client.h"

namespace tpslurm::api {

struct ReadinessCheck {
  std::string name;
  bool ok = false;
  std::string detail;
};

class Readiness {
 public:
  static constexpr std::chrono::seconds kReuseFor{5};
  static constexpr std::uint64_t kLeastFreeBytes = 1 << 20;

  // `slurm` may be null: then slurmrestd and token are reported not ok.
  Readiness(journal::Journal& journal, std::string journal_path, slurm::SlurmClient* slurm);

  std::vector<ReadinessCheck> check();
  // 200 {"status": "ready", "checks": [...]} or 503 with "not_ready", error, message, problems.
  Reply reply();

 private:
  slurm::CallResult preflight();

  journal::Journal& m_journal;
  std::string m_journal_path;
  slurm::SlurmClient* m_slurm;
  std::mutex m_mutex;
  std::optional<slurm::CallResult> m_answer;
  std::chrono::steady_clock::time_point m_answered_at;
};

}  // namespace tpslurm::api
