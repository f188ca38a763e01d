#include "reconcile/preflight_gate.h"

#include <algorithm>

namespace tpslurm::reconcile {
namespace {

constexpr std::chrono::milliseconds kFirstHold{1000};
constexpr std::chrono::milliseconds kLongestHold{std::chrono::minutes(5)};

bool settles(slurm::Outcome outcome) { return outcome == slurm::Outcome::ok || outcome == slurm::Outcome::rejected; }

}  // namespace

void PreflightGate::new_cycle() {
  std::lock_guard lock(m_mutex);
  m_answer.reset();
}

void PreflightGate::note_submit(slurm::Outcome outcome) {
  std::lock_guard lock(m_mutex);
  if (settles(outcome)) {
    m_unsettled = 0;
    m_hold_until.reset();
    return;
  }
  // The token may have gone bad since the pre-flight: the next submit asks again first.
  m_answer.reset();
  if (++m_unsettled < 2) return;
  const int doublings = std::min(m_unsettled - 2, 20);
  m_hold = std::min(kLongestHold, kFirstHold * (1 << doublings));
  m_hold_until = m_clock.now() + m_hold;
}

std::optional<TimePoint> PreflightGate::holding_until() const {
  std::lock_guard lock(m_mutex);
  // A wait longer than the hold means the clock was stepped back since: the hold from now.
  const TimePoint now = m_clock.now();
  if (m_hold_until && *m_hold_until - now > m_hold) m_hold_until = now + m_hold;
  return m_hold_until;
}

slurm::CallResult PreflightGate::check() {
  std::lock_guard lock(m_mutex);
  // While the budget backs off, its one probe call must be this read, not a submit.
  if (m_slurm.backing_off_until()) m_answer.reset();
  if (m_answer) return *m_answer;
  slurm::CallResult answer = m_slurm.preflight();
  ++m_calls;
  // Nothing reached the server (the budget's back-off, a refused connection): that says nothing
  // about the token, so the next submit asks again rather than waiting for the next cycle; the
  // budget keeps those asks from reaching a server that is down.
  if (answer.outcome != slurm::Outcome::not_sent) m_answer = answer;
  if (answer.ok()) m_told.clear();
  return answer;
}

bool PreflightGate::tell_once(const std::string& message) {
  std::lock_guard lock(m_mutex);
  if (message == m_told) return false;
  m_told = message;
  return true;
}

int PreflightGate::calls() const {
  std::lock_guard lock(m_mutex);
  return m_calls;
}

}  // namespace tpslurm::reconcile
