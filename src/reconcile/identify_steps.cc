// A submitted job's identity and release (docs/architecture.md §4 step 4): identify it by the
// receipt's numeric id (every component must carry the attempt's tag, requeue off), then
// release it when it was submitted held. A job identified and released in one pass journals
// both in one write (after the release): after a crash before it, the next pass identifies the
// job again and releases it again, which a job no longer held takes no harm from (a refused
// release is read, and a job no longer held counts as released).
#include <variant>

#include "base/crash_point.h"
#include "journal/components.h"
#include "reconcile/found_jobs.h"
#include "reconcile/retry_board.h"
#include "reconcile/steps.h"

namespace tpslurm::reconcile {
namespace {

using model::AttemptState;

bool still_held(const model::JobSnapshot& job) {
  return job.state.base == model::SlurmBaseState::pending && job.state_reason == "JobHeldUser";
}

// The attempt's components as the receipt's id reads them: every record of the het job.
std::vector<model::JobSnapshot> components_of(const slurm::JobsResult& read, std::uint32_t id) {
  std::vector<model::JobSnapshot> out;
  for (const auto& record : read.jobs) {
    if (record.job_id == id || record.het_job_id == id) out.push_back(record);
  }
  return out;
}

// Why the records cannot be this attempt's job, or empty when they are.
std::string identity_problem(const std::vector<model::JobSnapshot>& components, const model::JobTag& tag) {
  if (components.empty()) return "Slurm returned no record for the job id";
  for (const auto& c : components) {
    if (!tag.identifies(c.tag())) {
      return "Slurm job " + std::to_string(c.job_id) + " does not carry the attempt's tag (name \"" + c.name +
             "\", comment \"" + c.comment + "\")";
    }
  }
  return {};
}

// Slurm would run it again on its own: requeue is on, or it already did.
std::string requeue_problem(const std::vector<model::JobSnapshot>& components) {
  for (const auto& c : components) {
    if (c.requeue) return "component " + std::to_string(c.het_job_offset.value_or(0)) + " has requeue enabled";
    if (c.restart_count > 0 || c.state.has(model::SlurmStateFlag::requeued)) {
      return "Slurm job " + std::to_string(c.job_id) + " was requeued (restart count " +
             std::to_string(c.restart_count) + ")";
    }
  }
  return {};
}

// What identify read and checked, to be journaled as `identified`: by itself, or with the
// release that follows it in the same pass (one write for both).
struct Identified {
  journal::AttemptChanges changes;
  journal::EventDetail detail;
};

// Reads the job by the receipt's id and checks it: the changes to journal, or how the step
// ended when it cannot be identified now. Records none of which carries the tag are another
// job's that took the id (conclude_id_reused); some that do and some that do not are the
// attempt's job with a component a user edited: an anomaly, checked again.
std::variant<Identified, StepEnd> identify(Step& step) {
  constexpr std::string_view kWhat = "identify";
  if (step.not_due(kWhat) || step.budget_refuses()) return StepEnd::wait;
  const std::uint32_t id = *step.attempt.slurm_job_id;
  slurm::JobsResult read = step.services.slurm.get_job(slurm::JobRef{id, {}, std::nullopt, step.attempt.unix_user});
  if (!read.ok()) {
    if (read.outcome == slurm::Outcome::not_found) return conclude_forgotten(step);
    return step.retry_spaced(kWhat);
  }
  std::vector<model::JobSnapshot> components = components_of(read, id);
  const model::JobTag tag = tag_of(step.services, step.attempt);
  if (another_jobs(components, tag)) {
    // Not the attempt's job (steps.h); read again only spaced, as the conclusion's search is.
    step.services.retries.failed(step.attempt.submit_token, kWhat);
    return conclude_id_reused(step, another_jobs_words(components, tag));
  }
  if (std::string problem = identity_problem(components, tag); !problem.empty()) {
    return step.retry_said_once(kWhat, kWhat, "anomaly", "identify: " + problem + "; not released, checked again",
                                config::LogLevel::error);
  }
  step.services.retries.forget(step.attempt.submit_token, kWhat);
  if (std::string problem = requeue_problem(components); !problem.empty()) {
    return cancel_and_fail(step, problem, CancelCause::anomaly, "an anomaly: " + problem);
  }
  const FoundJob job = group_found(components, "receipt").front();
  Identified identified;
  identified.changes.identified = true;
  identified.changes.sluid = job.leader_sluid;
  identified.changes.het_job_id = components.front().het_job_id;
  identified.changes.components = journal::components_json(components);
  if (!read.release.empty()) identified.changes.server_release = read.release;
  identified.changes.dialect = read.dialect;
  identified.detail = {{"components", std::to_string(components.size())}};
  step.carry.identified_job = id;
  step.carry.identified_components = std::move(components);
  crash_point("identify.after");
  return identified;
}

// The in-memory attempt after `identified` is journaled.
void mark_identified(Step& step, const Identified& identified) {
  step.attempt.identified_at = "now";
  step.attempt.sluid = identified.changes.sluid.value_or("");
}

StepEnd journal_identified(Step& step, const Identified& identified) {
  StepEnd end = step.update("identified", identified.changes, identified.detail);
  if (end == StepEnd::next) mark_identified(step, identified);
  return end;
}

// Releases the held job. `identified`: identify's changes of this pass, not journaled yet —
// written with `released` when the release goes through, alone before any other end.
StepEnd release(Step& step, const Identified* identified) {
  constexpr std::string_view kWhat = "release";
  // Whatever stops the release first journals what identify found, so no pass reads it again.
  auto stop = [&](auto&& then) -> StepEnd {
    if (identified != nullptr && journal_identified(step, *identified) == StepEnd::failed) return StepEnd::failed;
    return then();
  };
  if (step.not_due(kWhat) || step.budget_refuses()) return stop([] { return StepEnd::wait; });
  const model::JobTag tag = tag_of(step.services, step.attempt);
  const std::string sluid = identified ? identified->changes.sluid.value_or("") : step.attempt.sluid;
  const slurm::JobRef ref{*step.attempt.slurm_job_id, sluid, tag, step.attempt.unix_user};
  // Identified in this pass: those records were just checked; else release_hold reads again.
  const bool just_identified = step.carry.identified_job == ref.job_id;
  slurm::ReleaseResult answer = step.services.slurm.release_hold(
      ref, just_identified ? std::span<const model::JobSnapshot>(step.carry.identified_components)
                           : std::span<const model::JobSnapshot>());
  crash_point("release.after_send");
  std::string how = answer.already_ended ? "already ended" : "released";
  if (!answer.ok()) {
    if (answer.another_job) return stop([&] { return conclude_id_reused(step, answer.message); });
    // A release sent before a crash may have been applied: read the job to know.
    slurm::JobsResult read = step.services.slurm.get_job(ref);
    if (read.outcome == slurm::Outcome::not_found) return stop([&] { return conclude_forgotten(step); });
    const auto components = components_of(read, ref.job_id);
    if (read.ok() && another_jobs(components, tag)) {
      return stop([&] { return conclude_id_reused(step, another_jobs_words(components, tag)); });
    }
    const bool held = std::any_of(components.begin(), components.end(), still_held);
    if (!read.ok() || components.empty() || held) {
      step.log(config::LogLevel::warn, "release failed: " + answer.message);
      return stop([&] { return step.retry_spaced(kWhat); });
    }
    how = "no longer held";
  }
  std::vector<Step::Update> updates;
  if (identified != nullptr) updates.push_back({"identified", identified->changes, identified->detail});
  Step::Update& released = updates.emplace_back();
  released.kind = "released";
  released.changes.released = true;
  released.detail = {{"reason", how}};
  StepEnd end = step.update(updates);
  if (end == StepEnd::next) {
    if (identified != nullptr) mark_identified(step, *identified);
    step.attempt.released_at = "now";
    crash_point("release.after_commit");
  }
  return end;
}

}  // namespace

StepEnd identify_and_release(Step& step) {
  const bool to_release = step.attempt.awaiting_release() && step.job.desire == model::Desire::run;
  if (!step.attempt.identified_at.empty()) return to_release ? release(step, nullptr) : StepEnd::wait;
  auto identified = identify(step);
  if (const StepEnd* end = std::get_if<StepEnd>(&identified)) return *end;
  const Identified& found = std::get<Identified>(identified);
  return to_release ? release(step, &found) : journal_identified(step, found);
}

}  // namespace tpslurm::reconcile
