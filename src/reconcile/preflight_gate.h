// PreflightGate: one authenticated pre-flight call before each cycle's submits.
//
// On 22.05 a token slurmctld refuses makes a submit answer like any other 500 — a lost
// answer, which would block the job. So before the first submit of a cycle the gate runs
// SlurmClient::preflight(); the cycle's other submits reuse its answer — unless nothing was
// sent (`not_sent`: the request budget's back-off, a refused connection), which the next
// submit asks again. Only `ok` lets a submit go; `auth` (and any failure) keeps the attempt
// prepared, nothing sent. Thread-safe:
// concurrent passes wait for the one pre-flight in flight.
#pragma once

#include <mutex>
#include <optional>

#include "slurm/slurm_client.h"

namespace tpslurm::reconcile {

class PreflightGate {
 public:
  explicit PreflightGate(slurm::SlurmClient& slurm) : m_slurm(slurm) {}

  // The next check() asks Slurm again.
  void new_cycle();
  // This cycle's pre-flight answer (running it if none ran yet).
  slurm::CallResult check();
  int calls() const;

 private:
  slurm::SlurmClient& m_slurm;
  mutable std::mutex m_mutex;
  std::optional<slurm::CallResult> m_answer;
  int m_calls = 0;
};

}  // namespace tpslurm::reconcile
