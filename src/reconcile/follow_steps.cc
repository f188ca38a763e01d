// The steps that follow a job Slurm holds to its end (docs/architecture.md §5): what the cycle's
// status poll posted (status_round.h) is judged (slurm_verdict.h) and journaled — a new state,
// an end with its reason and exit status, an anomaly or a pending reason that never clears
// (cancelled, the attempt failed) — and a job slurmctld no longer reports is concluded from
// what is left of it (forgotten_steps.cc).
#include <boost/json.hpp>

#include "base/crash_point.h"
#include "base/duration.h"
#include "journal/components.h"
#include "model/attempt_layout.h"
#include "model/pending_reason.h"
#include "reconcile/elapsed_board.h"
#include "reconcile/slurm_verdict.h"
#include "reconcile/status_board.h"
#include "reconcile/steps.h"
#include "storage/attempt_evidence.h"

namespace tpslurm::reconcile {
namespace {

using model::AttemptState;

// A job missing from one poll right after its submit is not yet gone (slurmctld may not list
// it yet): it is looked for when two polls in a row missed it, or when it was last seen (or
// identified) longer than two poll intervals ago (a daemon started anew, `serve --once`).
// Another job at its id is no such doubt: it is looked for at once.
constexpr int kAbsentPollsToLook = 2;

bool gone_long_enough(const Step& step, const StatusEntry& entry) {
  if (entry.absent_polls >= kAbsentPollsToLook) return true;
  std::optional<TimePoint> seen = parse_utc(step.attempt.observed_at);
  if (!seen) seen = parse_utc(step.attempt.identified_at);
  return seen && step.services.clock.now() - *seen > 2 * step.services.settings.poll_interval;
}

// Pending since it was released (held submits) or identified (direct), as the ElapsedBoard
// measures it (a step of our wall clock does not count).
std::string pending_limit_problem(const Step& step) {
  const auto limit = step.services.settings.max_pending;
  if (limit.count() == 0) return {};
  auto since = parse_utc(step.attempt.released_at);
  if (!since) since = parse_utc(step.attempt.identified_at);
  if (!since || step.services.elapsed.since("pending:" + step.attempt.submit_token, *since) < limit) return {};
  return "pending for longer than TUNEPLANE_MAX_PENDING (" + format_duration(limit) + ")";
}

// What the platform hears of a wait: Slurm's reason and, when Slurm has one, the expected start.
journal::EventDetail wait_detail(const Verdict& v, const std::vector<journal::JournaledComponent>& components) {
  journal::EventDetail detail{{"reason", v.reason.empty() ? v.slurm_state : v.reason}};
  if (v.state != AttemptState::pending) return detail;
  if (auto start = journal::expected_start(components)) detail.emplace_back("expected_start", format_utc(*start));
  return detail;
}

// The job's records say it is still in Slurm's hands (or its end is hidden until next poll).
// A pending attempt whose wait changed (slurm_verdict.h: pending_news) gets an event the change
// feed shows; other observations only update the attempt.
StepEnd follow_live(Step& step, const Verdict& v, const std::vector<model::JobSnapshot>& records) {
  if (v.state == AttemptState::pending && !v.anomaly.size()) {
    if (model::pending_forever(v.reason)) {
      return cancel_and_fail(step, "Slurm will never start it: pending reason " + v.reason, CancelCause::slurm, "");
    }
  }
  journal::AttemptChanges changes = observed_changes(v, records);
  const std::vector<journal::JournaledComponent> now = journal::journaled(records);
  if (v.state == step.attempt.state ||
      (v.state == AttemptState::pending && step.attempt.state == AttemptState::running)) {
    const bool news = v.state == AttemptState::pending && step.attempt.state == AttemptState::pending &&
                      pending_news(journal::parse_components(step.attempt.components), now, step.services.clock.now());
    return news ? step.update("attempt.pending", changes, wait_detail(v, now)) : step.update("", changes, {});
  }
  return step.move(v.state, changes, wait_detail(v, now));
}

}  // namespace

std::optional<ExitEvidence> exit_evidence(const Step& step) {
  return storage::read_exit(attempt_dir_of(step.services, step.attempt));
}

journal::AttemptChanges observed_changes(const Verdict& v, const std::vector<model::JobSnapshot>& records) {
  journal::AttemptChanges changes;
  changes.observed = true;
  if (!records.empty()) changes.components = journal::components_json(records);
  changes.slurm_state = v.slurm_state;
  changes.slurm_reason = v.reason;
  return changes;
}

StepEnd end_attempt(Step& step, const Verdict& v, journal::AttemptChanges changes, const std::string& found_by) {
  changes.exit_code = v.exit_code;
  changes.exit_signal = v.exit_signal;
  changes.outcome_reason = v.outcome;
  if (!v.failure_phase.empty()) changes.failure_phase = v.failure_phase;
  journal::EventDetail detail{{"reason", v.outcome}, {"evidence", found_by}};
  if (v.state == AttemptState::failed && !v.infra_failure.empty()) {
    if (!decide_infra_retry(step, v, changes, detail)) return StepEnd::wait;  // looked at again next cycle
  } else {
    decide_retry(step, v.state, v.retry_because, changes, detail);
  }
  StepEnd end = step.move(v.state, changes, detail);
  if (end == StepEnd::next) crash_point("follow.after_end");
  return end;
}

void retry_at_no_cost(const Step& step, const std::string& because, journal::AttemptChanges& changes,
                      journal::EventDetail& detail) {
  if (step.job.desire != model::Desire::run) {
    detail.emplace_back("retry", "no: " + because + ", but a cancel was asked");
    return;
  }
  changes.job_phase = model::JobPhase::queued;
  changes.grant_attempt = true;
  detail.emplace_back("retry", "yes: " + because + "; it never ran, so it costs none of the job's attempts; attempt " +
                                   std::to_string(step.attempt.number + 1) +
                                   " starts when this one's cleanup has closed");
}

void decide_retry(const Step& step, AttemptState end, const std::string& because, journal::AttemptChanges& changes,
                  journal::EventDetail& detail) {
  if (end == AttemptState::succeeded) return;
  const int left = step.job.max_attempts - step.attempt.number;
  if (because.empty()) {
    detail.emplace_back("retry",
                        "no: the end is not one the platform retries (only the cluster's failures, "
                        "launch failures and anomalies are)");
  } else if (step.job.desire != model::Desire::run) {
    detail.emplace_back("retry", "no: " + because + ", but a cancel was asked");
  } else if (left <= 0) {
    detail.emplace_back("retry", "no: " + because + ", but attempt " + std::to_string(step.attempt.number) +
                                     " was the last of " + std::to_string(step.job.max_attempts));
  } else {
    changes.job_phase = model::JobPhase::queued;
    detail.emplace_back("retry", "yes: " + because + "; attempt " + std::to_string(step.attempt.number + 1) +
                                     " starts when this one's cleanup has closed");
  }
}

StepEnd follow(Step& step) {
  std::optional<StatusEntry> entry = step.services.statuses.take(step.attempt.submit_token);
  if (entry && !entry->id_reused.empty()) return conclude_id_reused(step, entry->id_reused);
  if (entry && entry->records.empty()) {
    return gone_long_enough(step, *entry) ? conclude_forgotten(step) : StepEnd::wait;
  }
  std::optional<ExitEvidence> exit;
  std::optional<Verdict> v;
  if (entry) {
    exit = exit_evidence(step);
    v = judge(entry->records, journal::parse_components(step.attempt.components), exit,
              step.attempt.state == AttemptState::running);
    if (!v->anomaly.empty()) {
      // Slurm ran it again under a new SLUID: cancel what Slurm has now.
      for (const auto& r : entry->records) {
        if (r.job_id == step.attempt.slurm_job_id) step.attempt.sluid = r.sluid;
      }
      return cancel_and_fail(step, v->anomaly, CancelCause::anomaly, "an anomaly: " + v->anomaly);
    }
  }
  const bool pending = v ? v->state == AttemptState::pending : step.attempt.state != AttemptState::running;
  if (pending) {
    if (std::string problem = pending_limit_problem(step); !problem.empty()) {
      return cancel_and_fail(step, problem, CancelCause::slurm, "");
    }
  }
  if (!v) return StepEnd::wait;
  if (!model::is_final(v->state)) return follow_live(step, *v, entry->records);
  return end_attempt(step, *v, observed_changes(*v, entry->records), exit ? "slurmctld and exit.json" : "slurmctld");
}

}  // namespace tpslurm::reconcile
