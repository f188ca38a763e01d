// Step: what every step of a pass shares — the services, the job and its current attempt as
// last read, the gates — and the journal writes they make, each recorded in the pass's
// result. Internal to reconcile/. One per step of a pass; not shared between threads.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/logging.h"
#include "journal/records.h"
#include "reconcile/journal_writer.h"
#include "reconcile/pass.h"
#include "render/renderer.h"

namespace tpslurm::reconcile {

// How a step ended: `next` — the state changed, take the next step now; `wait` — nothing more
// can happen now; `failed` — a journal write failed (the result says why).
enum class StepEnd { next, wait, failed };

// What a step leaves for the later steps of its pass. The journal is still the only state that
// outlives a pass: this only saves doing the same work twice within one.
struct PassCarry {
  // prepare's render of the attempt it has just written (number, token), for send_submit in
  // the same pass (in safe mode, where its search decides; otherwise prepare sends at once):
  // within a pass the request, settings and catalogs are the ones it was rendered from, and
  // the files just written are not read back to verify them.
  int rendered_attempt = 0;
  std::string rendered_token;
  std::optional<render::RenderedAttempt> rendered;
  // identify's records of the job (its numeric id), read and checked against the tag, for
  // the release that follows it in the same pass (SlurmClient::release_hold's `checked`).
  std::uint32_t identified_job = 0;
  std::vector<model::JobSnapshot> identified_components;
};

struct Step {
  Services& services;
  const PassGates& gates;
  PassResult& result;
  journal::JobRecord job;
  journal::AttemptRecord attempt;
  PassCarry& carry;

  // Attempt state change with its event (and the job's phase), through the writer.
  StepEnd move(model::AttemptState to, const journal::AttemptChanges& changes, journal::EventDetail detail);
  struct Move {
    model::AttemptState to;
    journal::AttemptChanges changes;
    journal::EventDetail detail;
  };
  // State changes in one write (one commit), in their order, each with its event; should a
  // later one fail, the earlier ones stand (each is a state the journal may hold) and the
  // step ends failed.
  StepEnd move(std::span<const Move> moves);
  // Same-state update with an event of `kind`.
  StepEnd update(std::string_view kind, const journal::AttemptChanges& changes, journal::EventDetail detail);
  struct Update {
    std::string_view kind;
    journal::AttemptChanges changes;
    journal::EventDetail detail;
  };
  // Same-state updates in one write (one commit), in their order, each with its event; should
  // a later one fail, the earlier ones stand (each is a state the journal may hold).
  StepEnd update(std::span<const Update> updates);
  // An event alone. Returns wait (or failed).
  StepEnd event(std::string_view kind, journal::EventDetail detail);
  // The result of a journal write: records progress or the failure.
  StepEnd written(const Status& status);
  // Whether the storage root is gone (storage/storage_root.h); then the pass reports the
  // storage condition and the step must wait.
  bool storage_missing();
  // Whether the spaced retry of `what` for this attempt is not due yet (retry_board.h); then
  // the pass looks again when it is.
  bool not_due(std::string_view what);
  // Whether the request budget would refuse a call to Slurm now (it backs off, or this
  // second's calls are spent): then the step waits with nothing journaled, looked at again
  // when the back-off or the second ends. Asked before every call a step makes, so that a
  // refusal is never taken for Slurm's answer.
  bool budget_refuses();
  // The pass looks again at `when`, and at least every 5 s (a clock stepped back meanwhile).
  void look_again_at(TimePoint when);
  // `what` met the same answer again: it is tried again spaced. Returns wait.
  StepEnd retry_spaced(std::string_view what);
  // `what` meets a situation that lasts (`once` names it): tried again spaced, and the first
  // time only, `words` logged at `level` (with `advice` appended) and journaled as an event of
  // `kind`. Returns wait (or failed).
  StepEnd retry_said_once(std::string_view what, std::string_view once, std::string_view kind, const std::string& words,
                          config::LogLevel level = config::LogLevel::warn, const std::string& advice = {});
  // A file operation for the attempt (`what`: "prepare", "cleanup") failed with `error`. When
  // the storage root still takes a write, the problem is this attempt's own: the step is tried
  // again spaced and it is said once, as an event and a warning (every other attempt goes on);
  // otherwise the pass reports the storage condition. Returns wait (or failed).
  StepEnd storage_failed(const Error& error, std::string_view what);

  config::LogFields fields() const;
  void log(config::LogLevel level, std::string_view message) const;
  std::string which() const;
};

// What a log line about `attempt` names: job, attempt, Slurm id and SLUID where known.
config::LogFields attempt_fields(const journal::AttemptRecord& attempt);
config::LogFields job_fields(std::uint32_t slurm_job_id, const std::string& sluid,
                             const journal::AttemptRecord& attempt);

// The attempt's directory as this host sees it (journaled, else where it would be).
std::string attempt_dir_of(const Services& services, const journal::AttemptRecord& attempt);

// The attempt's tag, as every component carries it.
model::JobTag tag_of(const Services& services, const journal::AttemptRecord& attempt);

}  // namespace tpslurm::reconcile
