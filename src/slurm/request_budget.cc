#include "slurm/request_budget.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace tpslurm::slurm {

Status BudgetLimits::check() const {
  if (calls_per_second < 1) {
    return invalid_argument("request budget: calls_per_second " + std::to_string(calls_per_second) +
                            " must be at least 1");
  }
  if (floor_per_second < 1) {
    return invalid_argument("request budget: floor_per_second " + std::to_string(floor_per_second) +
                            " must be at least 1");
  }
  if (slow_answer < std::chrono::milliseconds(1))
    return invalid_argument("request budget: slow_answer must be at least 1 ms");
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

namespace {
constexpr std::chrono::seconds kWindow{1};
}  // namespace

RequestBudget::RequestBudget(const Clock& clock, BudgetLimits limits)
    : m_clock(clock), m_limits(limits), m_window_start(clock.now()), m_rate(limits.calls_per_second) {}

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
  if (m_budget != nullptr) m_budget->give_back(m_window, m_follow_ups, m_probe);
}

Reservation::Reservation(Reservation&& other) noexcept
    : m_budget(std::exchange(other.m_budget, nullptr)),
      m_window(other.m_window),
      m_follow_ups(other.m_follow_ups),
      m_probe(other.m_probe) {}

Reservation& Reservation::operator=(Reservation&& other) noexcept {
  if (this != &other) {
    if (m_budget != nullptr) m_budget->give_back(m_window, m_follow_ups, m_probe);
    m_budget = std::exchange(other.m_budget, nullptr);
    m_window = other.m_window;
    m_follow_ups = other.m_follow_ups;
    m_probe = other.m_probe;
  }
  return *this;
}

void RequestBudget::begin_cycle() {
  std::lock_guard lock(m_mutex);
  m_window_start = m_clock.now() - kWindow;
  roll_window(m_clock.now());
}

void RequestBudget::roll_window(TimePoint now) const {
  if (now >= m_window_start && now - m_window_start < kWindow) return;
  m_window_start = now;
  m_used = 0;
  m_promised = 0;
  ++m_window;
}

int RequestBudget::allowed() const { return std::max(1, static_cast<int>(m_rate)); }

Admission RequestBudget::admit() {
  std::lock_guard lock(m_mutex);
  Admission admission = admit_locked(0);
  if (admission.granted && m_promised > 0) --m_promised;
  return admission;
}

Reserved RequestBudget::reserve_submit(int follow_ups) {
  std::lock_guard lock(m_mutex);
  roll_window(m_clock.now());
  const int promise = promisable(follow_ups);
  Reserved reserved;
  const bool probe = m_until.has_value();
  reserved.admission = admit_locked(m_promised + promise);
  if (reserved.admission.granted) {
    m_promised += promise;
    reserved.reservation = Reservation(this, m_window, promise, probe);
  }
  return reserved;
}

std::optional<TimePoint> RequestBudget::refused_until() const { return refused_with(std::nullopt); }

std::optional<TimePoint> RequestBudget::refused_submit_until(int follow_ups) const { return refused_with(follow_ups); }

// No `follow_ups`: a plain call, which may take a promised one.
std::optional<TimePoint> RequestBudget::refused_with(std::optional<int> follow_ups) const {
  std::lock_guard lock(m_mutex);
  const TimePoint now = m_clock.now();
  if (m_until && now < *m_until) return std::min(*m_until, now + delay_after(m_failures));
  roll_window(now);
  const int needed = follow_ups ? m_promised + promisable(*follow_ups) : 0;
  if (m_used + needed < allowed()) return std::nullopt;
  return m_window_start + kWindow;
}

int RequestBudget::promisable(int follow_ups) const { return std::clamp(follow_ups, 0, allowed() - 1); }

void RequestBudget::give_back(long long window, int follow_ups, bool probe) {
  std::lock_guard lock(m_mutex);
  if (probe) m_probe_in_flight = false;
  if (window != m_window) return;
  if (m_used > 0) --m_used;
  m_promised = std::max(0, m_promised - follow_ups);
}

std::optional<Admission> RequestBudget::backoff_refusal(TimePoint now) {
  if (!m_until) return std::nullopt;
  // A wait longer than the whole delay means the clock was stepped back since the failure:
  // wait the delay from now, not until a time that lies hours ahead.
  const std::chrono::milliseconds delay = delay_after(m_failures);
  if (*m_until - now > delay) m_until = now + delay;
  if (now < *m_until) {
    return Admission{false,
                     "request budget: backing off after " + std::to_string(m_failures) + " failed call(s) until " +
                         format_utc(*m_until),
                     m_until};
  }
  // Past the back-off: one probe goes; the rest wait for its outcome.
  if (m_probe_in_flight) {
    return Admission{
        false, "request budget: a probe call after " + std::to_string(m_failures) + " failed call(s) is still out",
        now + m_limits.initial_backoff};
  }
  return std::nullopt;
}

Admission RequestBudget::admit_locked(int room) {
  const TimePoint now = m_clock.now();
  if (auto refused = backoff_refusal(now)) return *refused;
  roll_window(now);
  const int allowed_now = allowed();
  if (m_used >= allowed_now) {
    return {false, "request budget: all " + std::to_string(allowed_now) + " calls of this second are used",
            m_window_start + kWindow};
  }
  if (m_used + room >= allowed_now) {
    return {false,
            "request budget: the " + std::to_string(allowed_now - m_used) +
                " call(s) left in this second are kept for the jobs already in Slurm and the submits made",
            m_window_start + kWindow};
  }
  ++m_used;
  if (m_until) m_probe_in_flight = true;
  return {true, {}, std::nullopt};
}

void RequestBudget::record(Outcome outcome, std::chrono::milliseconds took) {
  std::lock_guard lock(m_mutex);
  m_probe_in_flight = false;
  const TimePoint now = m_clock.now();
  adapt(is_failure(outcome) || took > m_limits.slow_answer, now);
  if (!is_failure(outcome)) {
    m_failures = 0;
    m_until.reset();
    return;
  }
  ++m_failures;
  if (m_failures >= m_limits.failures_before_backoff) m_until = m_clock.now() + delay_after(m_failures);
}

void RequestBudget::adapt(bool slow_or_failed, TimePoint now) {
  const double ceiling = m_limits.calls_per_second;
  const double floor = std::min(m_limits.floor_per_second, m_limits.calls_per_second);
  if (!slow_or_failed) {
    // A tenth of the ceiling for each second's worth of quick answers at the rate of now.
    m_rate = std::min(ceiling, m_rate + std::max(1.0, ceiling / 10) / m_rate);
    return;
  }
  // Once a second at most: the answers of calls that were already out say the same thing.
  const bool halved_lately = m_last_halved && now >= *m_last_halved && now - *m_last_halved < kWindow;
  if (halved_lately) return;
  m_rate = std::max(floor, m_rate / 2);
  m_last_halved = now;
}

std::chrono::milliseconds RequestBudget::delay_after(int failures) const {
  const double initial = static_cast<double>(m_limits.initial_backoff.count());
  const double cap = static_cast<double>(m_limits.max_backoff.count());
  const int doublings = std::max(0, failures - m_limits.failures_before_backoff);
  const double delay = std::min(cap, initial * std::pow(m_limits.multiplier, doublings));
  return std::chrono::milliseconds(static_cast<std::chrono::milliseconds::rep>(delay));
}

int RequestBudget::used_this_window() const {
  std::lock_guard lock(m_mutex);
  roll_window(m_clock.now());
  return m_used;
}

int RequestBudget::rate() const {
  std::lock_guard lock(m_mutex);
  return allowed();
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
