// PreflightGate: whether a submit may go now — one authenticated pre-flight read before each
// cycle's submits and again after any submit answer that did not settle its submit, and a
// back-off of its own for submits whose answers keep not settling.
//
// On 22.05 a token slurmctld refuses makes a submit answer like any other 500, and on every
// release a 511 to a submit is "may have happened": a lost answer, which blocks the job. So
// before the first submit of a cycle the gate runs SlurmClient::preflight() (a read); the
// cycle's other submits reuse its answer — unless
//   - nothing was sent (`not_sent`: the request budget's back-off, a refused connection),
//     which the next submit asks again;
//   - a submit since then got an answer that does not settle it (note_submit: uncertain,
//     auth, not sent, a temporary refusal): the next submit runs the pre-flight again, so a
//     token that turns bad mid-cycle blocks the submit that met it and no later one (submits
//     already on the wire at that moment, one per pass thread at most, meet it too);
//   - the request budget is backing off (its back-off lets one call through as a probe): the
//     probe is the pre-flight's read, never a submit's POST.
// A pre-flight that passes says the server reads; it says nothing about why submit answers
// are lost (a proxy that drops slow answers, a slurmctld that times out on submits). So from
// the second unsettled answer in a row on, submits hold off (holding_until) for 1 s, doubling
// with each further one up to 5 minutes; a settled answer (ok, rejected) ends it. A clock
// stepped back never stretches a hold beyond its length.
// Only `ok` lets a submit go; `auth` (and any failure) keeps the attempt prepared, nothing
// sent. Time comes from the injected Clock. Thread-safe: concurrent passes wait for the one
// pre-flight in flight.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>

#include "base/clock.h"
#include "slurm/slurm_client.h"

namespace tpslurm::reconcile {

class PreflightGate {
 public:
  PreflightGate(slurm::SlurmClient& slurm, const Clock& clock) : m_slurm(slurm), m_clock(clock) {}

  // The next check() asks Slurm again.
  void new_cycle();
  // What a submit's answer amounted to.
  void note_submit(slurm::Outcome outcome);
  // While submits hold off after unsettled answers: until when (may be past); else empty.
  std::optional<TimePoint> holding_until() const;
  // This cycle's pre-flight answer (running it if none is kept).
  slurm::CallResult check();
  // Whether a failed pre-flight's `message` is news to log: true the first time, false while
  // the same failure repeats (every prepared job of a sweep meets it), true again once a
  // pre-flight has passed or the failure has changed.
  bool tell_once(const std::string& message);
  int calls() const;

 private:
  slurm::SlurmClient& m_slurm;
  const Clock& m_clock;
  mutable std::mutex m_mutex;
  std::optional<slurm::CallResult> m_answer;
  int m_calls = 0;
  int m_unsettled = 0;  // unsettled submit answers in a row
  std::chrono::milliseconds m_hold{0};
  mutable std::optional<TimePoint> m_hold_until;
  std::string m_told;  // the failure last logged; empty after a pre-flight passed
};

}  // namespace tpslurm::reconcile
