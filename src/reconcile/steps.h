// The steps of a pass, one per attempt state (pass.h describes them). Internal to
// reconcile/. Each takes the Step of the pass and says how it ended.
#pragma once

#include "reconcile/slurm_verdict.h"
#include "reconcile/step.h"

namespace tpslurm::reconcile {

StepEnd start_attempt(Step& step);         // no live attempt: a new one (when it could be sent), or the job ends
StepEnd prepare(Step& step);               // preparing -> prepared
StepEnd send_submit(Step& step);           // prepared -> submitting -> classified
StepEnd mark_unknown(Step& step);          // submitting found without a receipt
StepEnd search_blocked(Step& step);        // submit_unknown: evidence, the cycle's search, adopt
StepEnd identify_and_release(Step& step);  // submitted: identify, then release when held
StepEnd apply_cancel(Step& step);          // a cancel desire on an attempt Slurm may hold
StepEnd follow(Step& step);                // a job Slurm holds: what the status poll saw
StepEnd clean_interrupted(Step& step);     // cleanup of an attempt that ended before reaching Slurm
StepEnd clean_up(Step& step);              // cleanup of an ended attempt that reached Slurm

// prepare's end: `prepared` journaled with `changes`. When the submit can go at once (send_submit's
// checks: submits not held off, the pre-flight passed, the POST's call granted), the intent goes
// in the same write and the POST is sent; otherwise `prepared` alone and the step waits. In safe
// mode `prepared` alone, and send_submit's search decides in this pass.
StepEnd journal_prepared(Step& step, const journal::AttemptChanges& changes, render::RenderedAttempt rendered);

// Whether new submits are held off now, with no intent to journal and take back again: the
// request budget backs off after failed calls, the pre-flight after answers that did not
// settle, or this second has no room left for a submit and the calls it brings (the calls go
// first to the jobs already in Slurm). Each is looked at again when it ends (look_again_at).
// A new attempt is not begun meanwhile either: a sweep's attempts are prepared as fast as they
// can be sent, not ahead of it.
bool submits_held_off(Step& step);

// Why the reconciler cancels a job itself: Slurm will never run it as asked (a pending reason
// that never clears, the pending limit), or an anomaly (an unexpected requeue, a new SLUID, a
// record that does not match the attempt). The attempt's failure_phase is "slurm" or "anomaly".
enum class CancelCause { slurm, anomaly };
// Cancels the attempt's Slurm job and fails the attempt with `problem`; `retry_because`
// non-empty: the failure is not the program's own (decide_retry).
StepEnd cancel_and_fail(Step& step, const std::string& problem, CancelCause cause, const std::string& retry_because);
// Whether an attempt ending in `end` is retried: only when `because` says the failure is not
// the program's own, the job still wants to run and attempts are left; then the job is
// queued again instead of ending. The decision, either way, goes into the event's detail.
void decide_retry(const Step& step, model::AttemptState end, const std::string& because,
                  journal::AttemptChanges& changes, journal::EventDetail& detail);
// The same for an attempt the cluster ended (v.infra_failure: PREEMPTED, NODE_FAIL, BOOT_FAIL):
// retried while the job's retries after the cluster's failures (TUNEPLANE_INFRA_RETRIES, counted
// from the journal) are not spent, with one more attempt granted, so that it costs none of the
// attempts the request allows (infra_retries.cc). False when the journal could not be read.
bool decide_infra_retry(const Step& step, const Verdict& v, journal::AttemptChanges& changes,
                        journal::EventDetail& detail);
// The wait before the nth such retry: `first`, doubled for each later one, at most
// model::kLongestInfraBackoff.
std::chrono::seconds infra_backoff(std::chrono::seconds first, int nth);
// start_attempt, after an attempt the cluster ended: true while the next one's back-off lasts
// (from the end of the cleanup, as the ElapsedBoard measures it), the job looked at again then;
// also while the journal cannot say how many retries were used.
bool infra_backoff_holds(Step& step);
// The same, for an attempt that never ran (Slurm forgot or ended it before it started): the job
// still wanting to run is queued again with one more attempt granted, so the retry costs none
// of the attempts its request allows.
void retry_at_no_cost(const Step& step, const std::string& because, journal::AttemptChanges& changes,
                      journal::EventDetail& detail);
// What the ended attempt used, read once from slurmdbd and journaled (usage_steps.cc): wait
// while a spaced try is due; next once the usage, or why there is none, is journaled.
StepEnd read_usage(Step& step);
// Removes the attempt's credentials/ and scratch/ (nothing when `dir` is empty).

// slurmctld no longer knows the attempt's job (the poll stopped reporting it; a GET by its id
// answered "unknown job"): ended from the search by tag and logs/exit.json, retried at no cost
// when it never ran, `lost` when every source answered and none knows it; otherwise it waits,
// the search tried again spaced (forgotten_steps.cc).
StepEnd conclude_forgotten(Step& step);
// The attempt's Slurm job id now names another job: a record there does not carry the attempt's
// tag (model::JobTag::identifies, two of name, comment and working directory), so slurmctld let
// the attempt's job go and gave its id to a job that is not the attempt's (ids reset by a restart
// that lost slurmctld's state, or wrapping around). That job is never cancelled, released or
// signalled, nor its state taken for the attempt's: the attempt is concluded as a job Slurm
// forgot, and the first time in this run of the daemon a `slurm.id_reused` event and a warning
// say why (`other`: what is at the id, in words).
StepEnd conclude_id_reused(Step& step, const std::string& other);
// `records` (at the attempt's id) in words for conclude_id_reused: the first one's name, comment,
// working directory, and how many of the tag's marks it carries.
std::string another_jobs_words(const std::vector<model::JobSnapshot>& records, const model::JobTag& tag);
// Whether `records` are another job's: there are some, and none carries `tag`. A job some of
// whose components carry the tag is the attempt's (an edited component is an anomaly, not this).
bool another_jobs(const std::vector<model::JobSnapshot>& records, const model::JobTag& tag);
// Whether a copy of the attempt started (storage::attempt_started: anything in its logs/); an
// unreadable logs/ counts as started.
bool attempt_started(const Step& step);
// logs/exit.json, when the batch script wrote it.
std::optional<ExitEvidence> exit_evidence(const Step& step);
// The columns a poll's (or search's) view of the job sets: its records, state and reason.
journal::AttemptChanges observed_changes(const Verdict& v, const std::vector<model::JobSnapshot>& records);
// Ends the attempt as `v` says, with the retry decision; `found_by` names the evidence.
StepEnd end_attempt(Step& step, const Verdict& v, journal::AttemptChanges changes, const std::string& found_by);

}  // namespace tpslurm::reconcile
