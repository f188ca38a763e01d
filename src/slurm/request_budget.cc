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
  if (slow_factor != 0 && (slow_factor < 2 || slow_factor > 1000)) {
    return invalid_argument("request budget: slow_factor " + std::to_string(slow_factor) +
                            " must be 0 (off) or 2 to 1000");
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

namespace {
constexpr std::chrono::seconds kWindow{1};
// How long a kind's quickest answer counts: this, then as long again as the one before.
constexpr std::chrono::seconds kQuickestFor{10};
// Answers about one job in a second before half of them late halves the rate.
constexpr int kTallyAtLeast = 8;
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

void RequestBudget::record(Outcome outcome, std::chrono::milliseconds took, std::string_view kind) {
  std::lock_guard lock(m_mutex);
  m_probe_in_flight = false;
  const TimePoint now = m_clock.now();
  if (is_failure(outcome) || took > m_limits.slow_answer) {
    adapt(Pace::slow, now);
  } else {
    adapt(kind.empty() ? Pace::quick : pace_of(kind, took, now), now);
  }
  if (!is_failure(outcome)) {
    m_failures = 0;
    m_until.reset();
    return;
  }
  ++m_failures;
  if (m_failures >= m_limits.failures_before_backoff) m_until = m_clock.now() + delay_after(m_failures);
}

void RequestBudget::adapt(Pace pace, TimePoint now) {
  const double ceiling = m_limits.calls_per_second;
  const double floor = std::min(m_limits.floor_per_second, m_limits.calls_per_second);
  if (pace == Pace::late) return;
  if (pace == Pace::quick) {
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

RequestBudget::Pace RequestBudget::pace_of(std::string_view kind, std::chrono::milliseconds took, TimePoint now) {
  if (m_limits.slow_factor == 0) return Pace::quick;
  if (now < m_tally_start || now - m_tally_start >= kWindow) {
    m_tally_start = now;
    m_tallied = 0;
    m_late = 0;
  }
  ++m_tallied;
  if (!late_for_its_kind(kind, took, now)) return Pace::quick;
  ++m_late;
  return m_tallied >= kTallyAtLeast && 2 * m_late >= m_tallied ? Pace::slow : Pace::late;
}

bool RequestBudget::late_for_its_kind(std::string_view kind, std::chrono::milliseconds took, TimePoint now) {
  auto found = m_quickest.find(kind);
  if (found == m_quickest.end()) found = m_quickest.emplace(std::string(kind), Quickest{now, {}, {}}).first;
  Quickest& quickest = found->second;
  // A new period every kQuickestFor; one with no answer, or a clock stepped back, forgets all.
  if (now < quickest.since || now - quickest.since >= 2 * kQuickestFor) {
    quickest = Quickest{now, {}, {}};
  } else if (now - quickest.since >= kQuickestFor) {
    quickest = Quickest{now, {}, quickest.now};
  }
  std::optional<std::chrono::milliseconds> best = quickest.now;
  if (quickest.before && (!best || *quickest.before < *best)) best = quickest.before;
  if (!quickest.now || took < *quickest.now) quickest.now = took;
  if (!best) return false;
  return took > m_limits.slow_at_least && took > *best * m_limits.slow_factor;
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
