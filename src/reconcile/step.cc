#include "reconcile/step.h"

#include <algorithm>

#include "model/job_tag.h"
#include "reconcile/attempt_tag.h"
#include "reconcile/retry_board.h"
#include "reconcile/status_board.h"
#include "storage/layout.h"
#include "storage/storage_root.h"

namespace tpslurm::reconcile {

StepEnd Step::written(const Status& status) {
  if (status.ok()) {
    result.progressed = true;
    return StepEnd::next;
  }
  if (journal::is_unwritable(status.error())) {
    result.journal_condition = status.error();
  } else {
    log(config::LogLevel::warn, "journal write refused: " + status.error().message());
  }
  return StepEnd::failed;
}

bool Step::storage_missing() {
  Status there = storage::check_storage_root(services.settings.storage_root);
  if (there.ok()) return false;
  result.storage_condition = there.error();
  return true;
}

bool Step::not_due(std::string_view what) {
  auto left = services.retries.wait_left(attempt.submit_token, what);
  if (left) result.look_again = *left;
  return left.has_value();
}

bool Step::budget_refuses() {
  const slurm::RequestBudget* budget = services.budget;
  if (budget == nullptr) return false;
  const std::optional<TimePoint> until = budget->refused_until();
  if (until) look_again_at(*until);
  return until.has_value();
}

void Step::look_again_at(TimePoint when) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(when - services.clock.now());
  result.look_again = std::clamp(left, std::chrono::milliseconds(100), std::chrono::milliseconds(5000));
}

StepEnd Step::retry_spaced(std::string_view what) {
  services.retries.failed(attempt.submit_token, what);
  result.look_again = services.retries.wait_left(attempt.submit_token, what);
  return StepEnd::wait;
}

StepEnd Step::retry_said_once(std::string_view what, std::string_view once, std::string_view kind,
                              const std::string& words, config::LogLevel level, const std::string& advice) {
  StepEnd end = retry_spaced(what);
  if (!services.statuses.warn_once(attempt.submit_token + ":" + std::string(once))) return end;
  log(level, words + advice);
  StepEnd said = event(kind, {{"reason", words}});
  return said == StepEnd::failed ? said : end;
}

StepEnd Step::storage_failed(const Error& error, std::string_view what) {
  if (!storage::probe_storage_root(services.settings.storage_root).ok()) {
    result.storage_condition = error;
    return StepEnd::wait;
  }
  return retry_said_once(what, what, std::string(what) + ".blocked",
                         std::string(what) + " of this attempt failed (" + error.message() +
                             "); the storage root takes writes, so only this attempt waits; tried again, spaced");
}

StepEnd Step::move(model::AttemptState to, const journal::AttemptChanges& changes, journal::EventDetail detail) {
  const Move one{to, changes, std::move(detail)};
  return move(std::span<const Move>(&one, 1));
}

StepEnd Step::move(std::span<const Move> moves) {
  const journal::AttemptKey key = attempt.key();
  const model::AttemptState first = attempt.state;
  StepEnd end = written(services.journal.write([&](journal::Journal& j) -> Status {
    model::AttemptState from = first;
    for (const Move& m : moves) {
      if (Status done = j.transition(key, from, m.to, m.changes, m.detail); !done.ok()) return done;
      from = m.to;
    }
    return ok_status();
  }));
  if (end != StepEnd::next) return end;
  for (const Move& m : moves) {
    const model::AttemptState from = attempt.state;
    attempt.state = m.to;
    services.retries.forget_attempt(attempt.submit_token);
    const std::string what = std::string(model::to_string(from)) + "->" + std::string(model::to_string(m.to));
    std::string why = m.changes.outcome_reason.value_or("");
    for (const auto& [k, v] : m.detail) {
      if (k == "reason" && why.empty()) why = v;
    }
    log(model::is_final(m.to) && m.to != model::AttemptState::succeeded ? config::LogLevel::warn
                                                                        : config::LogLevel::info,
        why.empty() ? what : what + ": " + why);
    if (services.observer) services.observer(key, what);
  }
  return end;
}

StepEnd Step::update(std::string_view kind, const journal::AttemptChanges& changes, journal::EventDetail detail) {
  const Update one{kind, changes, std::move(detail)};
  return update(std::span<const Update>(&one, 1));
}

StepEnd Step::update(std::span<const Update> updates) {
  const journal::AttemptKey key = attempt.key();
  const model::AttemptState state = attempt.state;
  StepEnd end = written(services.journal.write([&](journal::Journal& j) {
    for (const Update& u : updates) {
      if (Status done = j.update_attempt(key, state, u.changes, u.kind, u.detail); !done.ok()) return done;
    }
    return ok_status();
  }));
  if (end == StepEnd::next) {
    for (const Update& u : updates) {
      log(config::LogLevel::info, u.kind);
      if (services.observer) services.observer(key, u.kind);
    }
  }
  return end;
}

StepEnd Step::event(std::string_view kind, journal::EventDetail detail) {
  // An event alone is not progress: a step that only reports must not keep a pass going.
  const bool before = result.progressed;
  StepEnd end = written(services.journal.write(
      [&](journal::Journal& j) { return j.record_event(job.job_id, attempt.number, kind, detail); }));
  result.progressed = before;
  return end == StepEnd::failed ? end : StepEnd::wait;
}

config::LogFields attempt_fields(const journal::AttemptRecord& attempt) {
  config::LogFields f;
  f.job = attempt.job_id;
  if (attempt.number > 0) f.attempt = attempt.number;
  f.slurm_job_id = attempt.slurm_job_id;
  f.sluid = attempt.sluid;
  return f;
}

config::LogFields job_fields(std::uint32_t slurm_job_id, const std::string& sluid,
                             const journal::AttemptRecord& attempt) {
  config::LogFields f = attempt_fields(attempt);
  f.slurm_job_id = slurm_job_id;
  f.sluid = sluid;
  return f;
}

config::LogFields Step::fields() const {
  config::LogFields f = attempt_fields(attempt);
  f.job = job.job_id;
  return f;
}

void Step::log(config::LogLevel level, std::string_view message) const { config::log(level, fields(), message); }

std::string Step::which() const { return "attempt " + job.job_id + "/" + std::to_string(attempt.number); }

std::string attempt_dir_of(const Services& services, const journal::AttemptRecord& attempt) {
  return storage::recorded_attempt_dir(attempt.attempt_dir, services.settings.storage_root, attempt.job_id,
                                       attempt.number);
}

model::JobTag tag_of(const Services& services, const journal::AttemptRecord& attempt) {
  return attempt_tag(services.settings, attempt);
}

}  // namespace tpslurm::reconcile
