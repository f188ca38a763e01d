#include "slurm/request_budget.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace tpslurm::slurm {

Status BudgetLimits::check() const {
  if (calls_per_cycle < 1) {
    return invalid_argument("request budget: calls_per_cycle " + std::to_string(calls_per_cycle) +
                            " must be at least 1");
  }
  if (initial_backoff < std::chrono::milliseconds(1))
    return invalid_argument("request budget: initial_backoff must be at least 1 ms");
  if (max_backoff < initial_backoff)
    return invalid_argument("request budget: max_backoff must not be shorter than initial_backoff");
  if (!(multiplier >= 1.0)) return invalid_argument("request budget: multiplier must be at least 1");
  if (failures_before_backoff < 1) {
    return invalid_argument("request budget: failures_before_backoff " + std::to_string(failures_before_backoff) +
                            " must be at least 1");
  }
  return ok_status();
}

RequestBudget::RequestBudget(const Clock& clock, BudgetLimits limits) : m_clock(clock), m_limits(limits) {}

bool RequestBudget::is_failure(Outcome outcome) {
  switch (outcome) {
    case Outcome::uncertain:
    case Outcome::not_sent:
    case Outcome::rejected_transient:
    case Outcome::auth: return true;
    case Outcome::ok:
    case Outcome::not_found:
    case Outcome::rejected: return false;
  }
  return true;
}

Reservation::~Reservation() {
  if (m_budget != nullptr) m_budget->give_back(m_cycle, m_follow_ups, m_probe);
}

Reservation::Reservation(Reservation&& other) noexcept
    : m_budget(std::exchange(other.m_budget, nullptr)),
      m_cycle(other.m_cycle),
      m_follow_ups(other.m_follow_ups),
      m_probe(other.m_probe) {}

Reservation& Reservation::operator=(Reservation&& other) noexcept {
  if (this != &other) {
    if (m_budget != nullptr) m_budget->give_back(m_cycle, m_follow_ups, m_probe);
    m_budget = std::exchange(other.m_budget, nullptr);
    m_cycle = other.m_cycle;
    m_follow_ups = other.m_follow_ups;
    m_probe = other.m_probe;
  }
  return *this;
}

void RequestBudget::begin_cycle() {
  std::lock_guard lock(m_mutex);
  m_used = 0;
  m_promised = 0;
  ++m_cycle;
}

Admission RequestBudget::admit() {
  std::lock_guard lock(m_mutex);
  Admission admission = admit_locked(0);
  if (admission.granted && m_promised > 0) --m_promised;
  return admission;
}

Reserved RequestBudget::reserve_submit(int follow_ups) {
  std::lock_guard lock(m_mutex);
  const int promise = promisable(follow_ups);
  Reserved reserved;
  const bool probe = m_until.has_value();
  reserved.admission = admit_locked(m_promised + promise);
  if (reserved.admission.granted) {
    m_promised += promise;
    reserved.reservation = Reservation(this, m_cycle, promise, probe);
  }
  return reserved;
}

bool RequestBudget::has_room_for_submit(int follow_ups) const {
  std::lock_guard lock(m_mutex);
  return m_used + m_promised + promisable(follow_ups) < m_limits.calls_per_cycle;
}

int RequestBudget::promisable(int follow_ups) const { return std::clamp(follow_ups, 0, m_limits.calls_per_cycle - 1); }

void RequestBudget::give_back(long long cycle, int follow_ups, bool probe) {
  std::lock_guard lock(m_mutex);
  if (probe) m_probe_in_flight = false;
  if (cycle != m_cycle) return;
  if (m_used > 0) --m_used;
  m_promised = std::max(0, m_promised - follow_ups);
}

Admission RequestBudget::admit_locked(int room) {
  if (m_until) {
    const TimePoint now = m_clock.now();
    // A wait longer than the whole delay means the clock was stepped back since the failure:
    // wait the delay from now, not until a time that lies hours ahead.
    const std::chrono::milliseconds delay = delay_after(m_failures);
    if (*m_until - now > delay) m_until = now + delay;
    if (now < *m_until) {
      return {false,
              "request budget: backing off after " + std::to_string(m_failures) + " failed call(s) until " +
                  format_utc(*m_until),
              m_until};
    }
    // Past the back-off: one probe goes; the rest wait for its outcome.
    if (m_probe_in_flight) {
      return {false,
              "request budget: a probe call after " + std::to_string(m_failures) + " failed call(s) is still out",
              now + m_limits.initial_backoff};
    }
  }
  if (m_used >= m_limits.calls_per_cycle) {
    return {false, "request budget: all " + std::to_string(m_limits.calls_per_cycle) + " calls of this cycle are used",
            std::nullopt};
  }
  if (m_used + room >= m_limits.calls_per_cycle) {
    return {false,
            "request budget: the " + std::to_string(m_limits.calls_per_cycle - m_used) +
                " call(s) left in this cycle are kept for the jobs already in Slurm and the submits made",
            std::nullopt};
  }
  ++m_used;
  if (m_until) m_probe_in_flight = true;
  return {true, {}, std::nullopt};
}

void RequestBudget::record(Outcome outcome) {
  std::lock_guard lock(m_mutex);
  m_probe_in_flight = false;
  if (!is_failure(outcome)) {
    m_failures = 0;
    m_until.reset();
    return;
  }
  ++m_failures;
  if (m_failures >= m_limits.failures_before_backoff) m_until = m_clock.now() + delay_after(m_failures);
}

std::chrono::milliseconds RequestBudget::delay_after(int failures) const {
  const double initial = static_cast<double>(m_limits.initial_backoff.count());
  const double cap = static_cast<double>(m_limits.max_backoff.count());
  const int doublings = std::max(0, failures - m_limits.failures_before_backoff);
  const double delay = std::min(cap, initial * std::pow(m_limits.multiplier, doublings));
  return std::chrono::milliseconds(static_cast<std::chrono::milliseconds::rep>(delay));
}

int RequestBudget::used_this_cycle() const {
  std::lock_guard lock(m_mutex);
  return m_used;
}

int RequestBudget::consecutive_failures() const {
  std::lock_guard lock(m_mutex);
  return m_failures;
}

std::optional<TimePoint> RequestBudget::backing_off_until() const {
  std::lock_guard lock(m_mutex);
  return m_until;
}

}  // namespace tpslurm::slurm
