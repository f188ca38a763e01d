#include "reconcile/preflight_gate.h"

namespace tpslurm::reconcile {

void PreflightGate::new_cycle() {
  std::lock_guard lock(m_mutex);
  m_answer.reset();
}

slurm::CallResult PreflightGate::check() {
  std::lock_guard lock(m_mutex);
  if (!m_answer) {
    m_answer = m_slurm.preflight();
    ++m_calls;
  }
  return *m_answer;
}

int PreflightGate::calls() const {
  std::lock_guard lock(m_mutex);
  return m_calls;
}

}  // namespace tpslurm::reconcile
