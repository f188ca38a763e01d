// RequestBudget: how many slurmrestd calls a controller may make per cycle, and how long it
// must hold off after errors — so that a controller, however many jobs it follows and however
// sick the server is, never floods slurmctld.
//
// Two rules, checked by admit() before every call:
//   - per cycle at most `calls_per_cycle` calls; begin_cycle() (the controller, once per poll
//     cycle) starts the count again;
//   - after `failures_before_backoff` calls in a row that failed in a way that says "the server
//     is struggling or unreachable" (uncertain, not_sent, rejected_transient, auth), no call
//     until a back-off delay has passed: `initial_backoff`, multiplied by `multiplier` after
//     each further failure, capped at `max_backoff`. When it has passed, ONE call is let
//     through as a probe; the others keep waiting until the probe's outcome is recorded. A
//     success (ok, not_found, rejected: the server answered about the request itself) ends
//     the back-off and the run of failures. One failure between successes is that call's own
//     (a dropped connection, one 500 while slurmctld was busy): it is retried by its caller,
//     and every other call goes on; a server that is down fails every call, so the second
//     one in a row starts the back-off.
// A refused admission says why and when to try again; the caller treats it as not sent (no
// byte left), so refusing is always safe. Time comes from the injected Clock: tests drive it
// by hand and never sleep. A clock stepped back never stretches a back-off: no wait lasts
// longer than the delay it was set to. Thread-safe.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>

#include "base/clock.h"
#include "base/result.h"
#include "slurm/outcome.h"

namespace tpslurm::slurm {

struct BudgetLimits {
  int calls_per_cycle = 200;
  std::chrono::milliseconds initial_backoff{1000};
  std::chrono::milliseconds max_backoff{std::chrono::minutes(5)};
  double multiplier = 2.0;
  int failures_before_backoff = 2;  // failed calls in a row that start the back-off

  // invalid_argument naming the field: calls_per_cycle < 1, initial_backoff < 1 ms,
  // max_backoff < initial_backoff, multiplier < 1, failures_before_backoff < 1.
  Status check() const;
};

struct Admission {
  bool granted = false;
  std::string reason;                 // why not: "request budget: ..." (empty when granted)
  std::optional<TimePoint> retry_at;  // when refused for back-off: the earliest next try
};

class RequestBudget {
 public:
  // `limits` must pass check(); `clock` must outlive the budget.
  RequestBudget(const Clock& clock, BudgetLimits limits);

  void begin_cycle();
  // Before a call: consumes one call of the cycle when granted.
  Admission admit();
  // After a granted call, with what it amounted to.
  void record(Outcome outcome);

  int used_this_cycle() const;
  int consecutive_failures() const;
  // While backing off: when the next probe may go.
  std::optional<TimePoint> backing_off_until() const;
  const BudgetLimits& limits() const { return m_limits; }

  // Whether an outcome counts as the server struggling (it starts or extends the back-off).
  static bool is_failure(Outcome outcome);

 private:
  std::chrono::milliseconds delay_after(int failures) const;

  const Clock& m_clock;
  const BudgetLimits m_limits;
  mutable std::mutex m_mutex;
  int m_used = 0;
  int m_failures = 0;
  std::optional<TimePoint> m_until;
  bool m_probe_in_flight = false;
};

}  // namespace tpslurm::slurm
