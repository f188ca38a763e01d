#include "reconcile/stop_condition.h"

#include "config/logging.h"

namespace tpslurm::reconcile {

void StopCondition::fail(const Error& error, Time since, Time now) {
  if (m_active || since < m_changed) return;
  m_active = error.message();
  m_changed = now;
  config::log(config::LogLevel::error, config::LogFields{},
              m_name + ": nothing new is submitted until it clears: " + *m_active);
}

void StopCondition::succeed(Time since, Time now) {
  if (!m_active || since < m_changed) return;
  config::log(config::LogLevel::info, config::LogFields{}, m_name + " cleared; submitting again");
  m_active.reset();
  m_changed = now;
}

}  // namespace tpslurm::reconcile
