// Cleanup (docs/architecture.md §5), one journaled step at a time and resumed after any crash. An
// attempt that never reached Slurm: none -> staging_pending -> sealing -> closed at once. One
// that reached Slurm:
//   none -> epilog_pending   while Slurm may still hold its resources (COMPLETING, STAGE_OUT,
//                            or no final record seen yet) -> staging_pending when a poll shows
//                            nothing held, or slurmctld no longer reports the job
//   none -> staging_pending  the last record seen was final and held nothing
//   staging_pending -> sealing   credentials/ and scratch/ removed
//   sealing -> closed            what the attempt used read from slurmdbd and journaled
//                                (usage_steps.cc), then every regular file in logs/ hashed
//                                into the journal (within the seal's bounds) and made read-only
// The files themselves are storage's (attempt_removal.h, log_seal.h): no link the job left
// there is followed, and no special file is opened. The job decides how much there is to
// remove and to seal, so a pass does one slice of either (storage/work_slice.h) and, when the
// slice ends first, hands the rest to the attempt's next pass (slice_board.h), which comes once
// the jobs woken before it had theirs: a hostile attempt holds a pass thread for one slice at
// a time, never for the whole of its work, and a stop request ends a slice at its next read.
// The step's event says how many slices it took when it took more than one.
// job.sh, env, manifest.json, logs/ and the evidence files stay. A job that stays COMPLETING
// past TUNEPLANE_COMPLETING_WARN_AFTER raises one warning event; nothing is released early.
#include <boost/json.hpp>

#include "base/crash_point.h"
#include "base/duration.h"
#include "journal/components.h"
#include "reconcile/slice_board.h"
#include "reconcile/slurm_verdict.h"
#include "reconcile/status_board.h"
#include "reconcile/steps.h"
#include "storage/attempt_removal.h"
#include "storage/log_seal.h"
#include "storage/work_slice.h"

namespace tpslurm::reconcile {
namespace {

using model::CleanupStep;

// Whether the journaled records say Slurm may still hold something: a component whose last
// state is not terminal, or none journaled at all.
bool may_hold(const journal::AttemptRecord& attempt) {
  const auto components = journal::parse_components(attempt.components);
  if (components.empty()) return true;
  for (const auto& c : components) {
    if (!model::SlurmState::from_text(c.state).is_terminal()) return true;
  }
  return false;
}

StepEnd advance(Step& step, CleanupStep to, const std::string& reason, std::optional<std::string> logs = {},
                journal::EventDetail more = {}) {
  const journal::AttemptKey key = step.attempt.key();
  const CleanupStep from = step.attempt.cleanup;
  journal::EventDetail detail{{"reason", reason}};
  detail.insert(detail.end(), more.begin(), more.end());
  StepEnd end = step.written(
      step.services.journal.write([&](journal::Journal& j) { return j.advance_cleanup(key, from, to, detail, logs); }));
  if (end == StepEnd::next) {
    step.attempt.cleanup = to;
    if (to == CleanupStep::closed) step.services.statuses.forget(step.attempt.submit_token);
    step.log(config::LogLevel::info, "cleanup " + std::string(model::to_string(to)) + ": " + reason);
    if (step.services.observer) step.services.observer(key, "cleanup." + std::string(model::to_string(to)));
  }
  return end;
}

// A poll's news about an ended attempt: its records journaled (no event), or its absence.
// Returns whether slurmctld no longer reports it.
bool take_news(Step& step, StepEnd& end) {
  std::optional<StatusEntry> entry = step.services.statuses.take(step.attempt.submit_token);
  end = StepEnd::next;
  if (!entry) return false;
  if (entry->records.empty()) return true;
  const Verdict v = judge(entry->records, {}, std::nullopt, false);
  journal::AttemptChanges changes;
  changes.observed = true;
  changes.components = journal::components_json(entry->records);
  changes.slurm_state = v.slurm_state;
  end = step.update("", changes, {});
  if (end == StepEnd::next) step.attempt.components = *changes.components;
  return false;
}

StepEnd wait_for_epilog(Step& step) {
  StepEnd end = StepEnd::next;
  const bool gone = take_news(step, end);
  if (end == StepEnd::failed) return end;
  if (gone || !may_hold(step.attempt)) {
    StepEnd moved = advance(step, CleanupStep::staging_pending,
                            gone ? "slurmctld no longer holds the job" : "Slurm released every node");
    if (moved == StepEnd::next) crash_point("cleanup.after_epilog");
    return moved;
  }
  const auto since = parse_utc(step.attempt.cleanup_at);
  const auto limit = step.services.settings.completing_warn_after;
  if (since && step.services.clock.now() - *since > limit &&
      step.services.statuses.warn_once(step.attempt.submit_token)) {
    step.log(config::LogLevel::warn, "the job still holds resources after " + format_duration(limit));
    return step.event("cleanup.slow", {{"reason", "Slurm still shows " + step.attempt.slurm_state + " after " +
                                                      format_duration(limit) + "; cleanup keeps waiting"}});
  }
  return StepEnd::wait;
}

// The seal as the journal keeps it: {"files": {name: sha256 of the whole file}, "partly":
// {name: {"size", "first", "last", "sha256" of those bytes}}, "notes": [...]}; "partly" only
// when a file was too large to hash whole.
std::string seal_json(const storage::LogSeal& seal) {
  boost::json::object files;
  boost::json::object partly;
  for (const auto& file : seal.files) {
    if (file.whole()) {
      files[file.name] = file.sha256;
    } else {
      partly[file.name] = boost::json::object{
          {"size", file.size}, {"first", file.edge_bytes}, {"last", file.edge_bytes}, {"sha256", file.sha256}};
    }
  }
  boost::json::array notes;
  for (const auto& note : seal.notes) notes.push_back(boost::json::string(note));
  boost::json::object out{{"files", std::move(files)}};
  if (!partly.empty()) out["partly"] = std::move(partly);
  out["notes"] = std::move(notes);
  return boost::json::serialize(out);
}

// One slice of long work for this pass: the fixed limits, the pass's clock, the stop request.
storage::WorkSlice pass_slice(const Step& step) {
  return storage::WorkSlice(&step.services.clock, {}, step.services.stop);
}

// The work was cut at the end of its slice: kept for the attempt's next pass, which comes as
// soon as the jobs woken before it had theirs. The first cut is logged: the job's files cost
// more than a slice, and the step's event will say how many.
StepEnd continue_later(Step& step, SlicedWork work, std::string_view what) {
  if (work.slices == 1 && !step.services.stop.stop_requested()) {
    step.log(config::LogLevel::info, std::string(what) + " takes more than one slice; going on in the next passes");
  }
  step.services.slices.put(step.attempt.submit_token, std::move(work));
  step.result.look_again = std::chrono::milliseconds(0);
  step.result.sliced = true;
  return StepEnd::wait;
}

// How the work went, for its step's event, when it took more than one slice.
journal::EventDetail sliced_detail(const SlicedWork& work) {
  if (work.slices < 2) return {};
  journal::EventDetail detail{{"slices", std::to_string(work.slices)}};
  if (work.entries > 0) detail.emplace_back("entries_removed", std::to_string(work.entries));
  return detail;
}

// One slice of removing credentials/ and scratch/: next when they are gone (`detail` says how
// it went), wait while more is left or the removal failed.
StepEnd remove_staging_slice(Step& step, const std::string& dir, journal::EventDetail& detail) {
  SlicedWork work = step.services.slices.take(step.attempt.submit_token, CleanupStep::staging_pending);
  storage::WorkSlice slice = pass_slice(step);
  auto removed = storage::remove_staging(dir, slice);
  if (!removed.ok()) return step.storage_failed(removed.error(), "cleanup");
  ++work.slices;
  work.entries += removed->entries;
  if (!removed->done) return continue_later(step, std::move(work), "removing credentials/ and scratch/");
  detail = sliced_detail(work);
  return StepEnd::next;
}

// One slice of the seal of logs/: closed when it is through.
StepEnd seal_slice(Step& step, const std::string& dir) {
  SlicedWork work = step.services.slices.take(step.attempt.submit_token, CleanupStep::sealing);
  if (!work.sealer) work.sealer = std::make_unique<storage::LogSealer>(dir);
  storage::WorkSlice slice = pass_slice(step);
  auto sealed = work.sealer->seal_some(slice);
  if (!sealed.ok()) return step.storage_failed(sealed.error(), "cleanup");  // begun again next time
  ++work.slices;
  if (!*sealed) return continue_later(step, std::move(work), "sealing logs/");
  crash_point("cleanup.after_seal");
  return advance(step, CleanupStep::closed, "scheduler logs sealed", seal_json(work.sealer->seal()),
                 sliced_detail(work));
}

}  // namespace

StepEnd clean_interrupted(Step& step) {
  switch (step.attempt.cleanup) {
    case CleanupStep::none: return advance(step, CleanupStep::staging_pending, "never reached Slurm: nothing held");
    case CleanupStep::staging_pending: {
      if (step.storage_missing() || step.not_due("cleanup")) return StepEnd::wait;
      journal::EventDetail detail;
      if (StepEnd end = remove_staging_slice(step, step.attempt.attempt_dir, detail); end != StepEnd::next) return end;
      return advance(step, CleanupStep::sealing, "credentials/ and scratch/ removed", {}, detail);
    }
    case CleanupStep::sealing: return advance(step, CleanupStep::closed, "nothing ran: no scheduler logs to seal");
    default: return StepEnd::wait;
  }
}

StepEnd clean_up(Step& step) {
  const std::string dir = attempt_dir_of(step.services, step.attempt);
  switch (step.attempt.cleanup) {
    case CleanupStep::none: {
      StepEnd end = StepEnd::next;
      const bool gone = take_news(step, end);
      if (end == StepEnd::failed) return end;
      if (!gone && may_hold(step.attempt)) {
        return advance(step, CleanupStep::epilog_pending, "waiting for Slurm to release the job's resources");
      }
      return advance(step, CleanupStep::staging_pending, "Slurm holds nothing of the job");
    }
    case CleanupStep::epilog_pending: return wait_for_epilog(step);
    case CleanupStep::staging_pending: {
      // Removing from a vanished root finds nothing and would journal a removal that never was.
      if (step.storage_missing() || step.not_due("cleanup")) return StepEnd::wait;
      journal::EventDetail detail;
      if (StepEnd end = remove_staging_slice(step, dir, detail); end != StepEnd::next) return end;
      crash_point("cleanup.after_staging");
      return advance(step, CleanupStep::sealing, "credentials/ and scratch/ removed", {}, detail);
    }
    case CleanupStep::sealing: {
      if (step.attempt.usage.empty()) return read_usage(step);
      if (step.storage_missing() || step.not_due("cleanup")) return StepEnd::wait;
      return seal_slice(step, dir);
    }
    case CleanupStep::closed: break;
  }
  return StepEnd::wait;
}

}  // namespace tpslurm::reconcile
