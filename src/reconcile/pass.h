// The reconciler's pass: one level-triggered look at one job (docs/architecture.md §4).
//
// A pass reads the journal (the job's desire, its attempts, what was last observed),
// decides the next step, journals the intent, acts, journals the result — and repeats while
// steps can be taken now. It never sleeps and never schedules: it returns when it wants to
// look again. The controller guarantees that no two passes of one job run at once; every
// journal write goes through the JournalWriter (one writer thread).
//
// What a pass does, by the current attempt's state:
//   no attempt (or the last one ended and its cleanup closed, the job queued again)
//                   -> a new attempt in preparing (not while paused, nor while the request
//                      budget has no room for its submit or the API's new jobs are still
//                      coming in: intake_priority.h, nor while max_running of its sweep's
//                      runs hold an attempt); desire cancel -> the job ends
//                      cancelled, nothing is ever sent
//   preparing       -> the attempt directory written, manifest last -> prepared (in one
//                      write with `submitting` when the submit can go at once, then sent)
//   prepared        -> manifest re-verified (prepared in an earlier pass), pre-flight passed,
//                      `submitting` committed, then
//                      the submit sent (held unless TUNEPLANE_SUBMIT_MODE=direct) and its
//                      answer classified: ok -> submitted; rejected -> rejected (the job
//                      fails with Slurm's words); rejected_transient / not_sent / proven auth
//                      -> prepared again, retried after a back-off; uncertain -> submit_unknown
//   submitting      -> found at start-up without a receipt: submit_unknown
//   submit_unknown  -> blocked: nothing is sent; the evidence file and this cycle's search
//                      by tag are read; found -> the copy that ran, else the first that can
//                      still run, adopted (submitted, found_by evidence|search), the others
//                      cancelled as duplicates; every copy ended without running -> abandoned,
//                      retried at no cost
//   submitted       -> identified (GET by id: the tag and requeue=false on every component),
//                      then released when held; a cancel desire is applied instead, identified
//                      or not; a job Slurm no longer knows is concluded (forgotten_steps.cc)
//   submitted (identified, released), pending, running
//                   -> what the cycle's status poll saw is journaled (follow_steps.cc): a
//                      new state, or the end with its reason, exit code and the retry
//                      decision; an anomaly or a pending reason that never clears cancels
//                      the job; a job slurmctld no longer reports is concluded from what is
//                      left of it (forgotten_steps.cc). A cancel desire is applied instead
//                      (with grace: SIGUSR1 first)
// A step that meets the same answer again (a read that fails, a source that does not answer)
// is tried again spaced and said once (retry_board.h, Step::retry_said_once).
//   ended attempts  -> cleanup, step by step (cleanup_steps.cc); the removal of scratch/ and
//                      the seal of logs/ one slice per pass; once closed, a job queued for a
//                      retry gets its next attempt
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "base/result.h"
#include "reconcile/services.h"

namespace tpslurm::reconcile {

// What the controller knows that the pass must respect.
struct PassGates {
  bool paused = false;              // `tuneplane-slurm pause`: nothing new is submitted
  bool safe_mode = false;           // restored journal: search by tag before sending anything
  bool storage_unwritable = false;  // the storage root refuses writes: prepare nothing
};

struct PassResult {
  bool progressed = false;  // something was journaled
  // Look again this soon without waiting for a new fact (a back-off); empty: next cycle.
  std::optional<std::chrono::milliseconds> look_again;
  bool wants_search = false;  // a blocked attempt waits for the cycle's search by tag
  // A new attempt waits for the API's intake to go quiet (intake_priority.h): the controller
  // wakes the job then, instead of a look every so often.
  bool waits_for_intake = false;
  // A long piece of work on the attempt's files (a removal, the seal) was cut at the end of its
  // slice (storage/work_slice.h): look_again is 0, so the job goes to the back of the queue and
  // its next slice comes once the jobs woken before it had theirs; in once mode the cycles go on.
  bool sliced = false;
  // A condition that stops submitting for every job (the journal or the storage cannot be
  // written); the controller logs it once and clears it when a later pass writes again
  // (reconcile/stop_condition.h).
  std::optional<Error> journal_condition;
  std::optional<Error> storage_condition;
};

PassResult run_pass(Services& services, const std::string& job_id, const PassGates& gates);

}  // namespace tpslurm::reconcile
