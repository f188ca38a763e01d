#include "reconcile/preflight_gate.h"

namespace tpslurm::reconcile {

void PreflightGate::new_cycle() {
  std::lock_guard lock(m_mutex);
  m_answer.reset();
}

slurm::CallResult PreflightGate::check() {
  std::lock_guard lock(m_mutex);
  if (m_answer) return *m_answer;
  slurm::CallResult answer = m_slurm.preflight();
  ++m_calls;
  // Nothing reached the server (the budget's back-off, a refused connection): that says nothing
  // about the token, so the next submit asks again rather than waiting for the next cycle; the
  // budget keeps those asks from reaching a server that is down.
  if (answer.outcome != slurm::Outcome::not_sent) m_answer = answer;
  return answer;
}

int PreflightGate::calls() const {
  std::lock_guard lock(m_mutex);
  return m_calls;
}

}  // namespace tpslurm::reconcile
