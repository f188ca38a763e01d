// RequestBudget: how many slurmrestd calls a controller may make per second, and how long it
// must hold off after errors — so that a controller, however many jobs it follows and however
// sick the server is, never floods slurmctld.
//
// Three rules, checked by admit() before every call:
//   - the rate: at most rate() calls in each one-second window (a window starts with the first
//     call after the last one ended; begin_cycle() starts one at once);
//   - the rate adapts, as TCP's window does: it starts at the site's ceiling
//     (`calls_per_second`), is halved (never below `floor_per_second`, at most once a second)
//     by a call that failed or that took longer than `slow_answer`, and grows back by a tenth
//     of the ceiling for each second's worth of calls answered quickly, never above it. A call
//     about one job (a submit, a read, a release, a cancel: record()'s `kind`) is late when it
//     took more than `slow_factor` times the quickest answer of its kind of the last 10 to 20 s,
//     and more than `slow_at_least`: a late answer does not grow the rate, and when half of a
//     second's answers about one job (at least 8 of them) are late, the rate is halved:
//     slurmctld's queue is growing, long before its answers take a second. A late answer now
//     and then is the controller's own work (a scheduling pass holds its locks); a late median
//     is a queue. Listings are judged by `slow_answer` alone (they grow with the cluster);
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
// byte left), so refusing is always safe.
//
// A new submit asks first, with reserve_submit(), before its intent is journaled (nothing is
// journaled for a call that is not made, docs/architecture.md §4): the same rules, and one
// more — the window must have room for the submit, for the `follow_ups` calls it brings (a
// held submit's identify and release) and for those of the submits granted before it in the
// window, so that new jobs never take the calls that the jobs already in Slurm need. Those
// promised calls are kept from submits only: any other call may take one (each it takes is one
// less promised). The Reservation it returns stands for that one call: the submit passes it to
// the client, which makes the call without asking again; dropped unused (the step stopped
// before sending), it gives the call back to the window it came from.
//
// Time comes from the injected Clock: tests drive it by hand and never sleep. A clock stepped
// back never stretches a back-off or a window: no wait lasts longer than the delay it was set
// to. Thread-safe.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/result.h"
#include "slurm/outcome.h"

namespace tpslurm::slurm {

struct BudgetLimits {
  int calls_per_second = 1000;  // the ceiling: the site's most calls in one second
  std::chrono::milliseconds initial_backoff{1000};
  std::chrono::milliseconds max_backoff{std::chrono::minutes(5)};
  double multiplier = 2.0;
  int failures_before_backoff = 2;  // failed calls in a row that start the back-off
  int floor_per_second = 10;        // the rate is never halved below this (capped at the ceiling)
  std::chrono::milliseconds slow_answer{std::chrono::seconds(2)};  // a call answered later halves the rate
  // A call about one job answered after this many times its kind's quickest of late (and after
  // `slow_at_least`) is late; a second with half of them late halves the rate. 0: off.
  int slow_factor = 8;
  std::chrono::milliseconds slow_at_least{10};

  // invalid_argument naming the field: calls_per_second < 1, initial_backoff < 1 ms,
  // max_backoff < initial_backoff, multiplier < 1, failures_before_backoff < 1,
  // floor_per_second < 1, slow_answer < 1 ms, slow_factor neither 0 nor 2 to 1000.
  Status check() const;
};

struct Admission {
  bool granted = false;
  std::string reason;                 // why not: "request budget: ..." (empty when granted)
  std::optional<TimePoint> retry_at;  // when refused for back-off: the earliest next try
};

class RequestBudget;

// One call taken from a budget ahead of making it. Move-only; an unused one gives its call back
// when it is destroyed. Not thread-safe itself (one step holds it); the budget it refers to is.
class Reservation {
 public:
  Reservation() = default;
  ~Reservation();
  Reservation(Reservation&& other) noexcept;
  Reservation& operator=(Reservation&& other) noexcept;
  Reservation(const Reservation&) = delete;
  Reservation& operator=(const Reservation&) = delete;

  // Holds a call not made yet.
  bool held() const { return m_budget != nullptr; }
  // The call goes now: it is spent, and the budget is not asked again.
  void spend() { m_budget = nullptr; }

 private:
  friend class RequestBudget;
  Reservation(RequestBudget* budget, long long window, int follow_ups, bool probe)
      : m_budget(budget), m_window(window), m_follow_ups(follow_ups), m_probe(probe) {}
  RequestBudget* m_budget = nullptr;
  long long m_window = 0;
  int m_follow_ups = 0;  // the calls it promised to keep
  bool m_probe = false;  // taken as the back-off's one probe
};

struct Reserved {
  Admission admission;
  Reservation reservation;  // held() when admission.granted
};

class RequestBudget {
 public:
  // `limits` must pass check(); `clock` must outlive the budget.
  RequestBudget(const Clock& clock, BudgetLimits limits);

  // Starts a new window now (the controller, once per poll cycle; `reconcile --once` relies on
  // it, as its cycles follow each other without waiting).
  void begin_cycle();
  // Before a call: consumes one call of the window when granted.
  Admission admit();
  // Before a new submit's intent: admit(), but granted only while this window has room for the
  // call, the calls promised so far and `follow_ups` more (fewer when the window has fewer
  // calls in all), which it then promises.
  Reserved reserve_submit(int follow_ups);
  // Empty when admit() would grant a call now; else when to look again (the back-off's end or
  // the next window). The same for reserve_submit(follow_ups): a cheap look before a step does
  // the work that precedes its call or reservation.
  std::optional<TimePoint> refused_until() const;
  std::optional<TimePoint> refused_submit_until(int follow_ups) const;
  // After a granted call, with what it amounted to and how long its answer took. `kind`: the
  // call's kind when it is about one job ("submit", "read", "release", "cancel"), empty
  // otherwise.
  void record(Outcome outcome, std::chrono::milliseconds took = {}, std::string_view kind = {});

  int used_this_window() const;
  // Calls a window may have now: the adaptive rate, floor to ceiling.
  int rate() const;
  int consecutive_failures() const;
  // While backing off: when the next probe may go.
  std::optional<TimePoint> backing_off_until() const;
  const BudgetLimits& limits() const { return m_limits; }

  // Whether an outcome counts as the server struggling (it starts or extends the back-off).
  static bool is_failure(Outcome outcome);

 private:
  friend class Reservation;
  std::chrono::milliseconds delay_after(int failures) const;
  // Starts a new window when this one's second has passed (or the clock went back before it).
  void roll_window(TimePoint now) const;
  // The back-off's refusal, if any, with the lock held.
  std::optional<Admission> backoff_refusal(TimePoint now);
  // admit()'s rules with the lock held; `room`: calls that must be left after this one.
  Admission admit_locked(int room);
  // `follow_ups` as a submit may promise them: fewer when the window has fewer calls in all.
  int promisable(int follow_ups) const;
  // refused_until() (no follow_ups) and refused_submit_until() with the lock taken here.
  std::optional<TimePoint> refused_with(std::optional<int> follow_ups) const;
  int allowed() const;  // calls in this window: the rate, at least 1
  // What an answer says of the server's pace: quick (the rate grows), late (it stays), slow
  // (it is halved).
  enum class Pace { quick, late, slow };
  void adapt(Pace pace, TimePoint now);
  // An answer about one job of `kind` that took `took`: late for its kind (which it then
  // joins), and slow when it makes half of this second's such answers late.
  Pace pace_of(std::string_view kind, std::chrono::milliseconds took, TimePoint now);
  bool late_for_its_kind(std::string_view kind, std::chrono::milliseconds took, TimePoint now);
  // An unused reservation's call and promise, back to `window` if that is still the current
  // one; a probe that never went lets the next call be one.
  void give_back(long long window, int follow_ups, bool probe);

  const Clock& m_clock;
  const BudgetLimits m_limits;
  mutable std::mutex m_mutex;
  // The window, rolled by const looks too (mutable): its calls and promises start again.
  mutable TimePoint m_window_start{};
  mutable long long m_window = 0;  // a reservation gives back only to its own window
  mutable int m_used = 0;
  mutable int m_promised = 0;  // calls kept for the follow-ups of this window's submits
  double m_rate = 0;           // calls per second now, floor to ceiling
  std::optional<TimePoint> m_last_halved;
  int m_failures = 0;
  std::optional<TimePoint> m_until;
  bool m_probe_in_flight = false;
  // The quickest answer of each kind: in the current 10 s and in the 10 s before.
  struct Quickest {
    TimePoint since{};
    std::optional<std::chrono::milliseconds> now;
    std::optional<std::chrono::milliseconds> before;
  };
  std::map<std::string, Quickest, std::less<>> m_quickest;
  // This second's answers about one job, and how many of them were late.
  TimePoint m_tally_start{};
  int m_tallied = 0;
  int m_late = 0;
};

}  // namespace tpslurm::slurm
