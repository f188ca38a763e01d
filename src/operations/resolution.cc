#include "operations/resolution.h"

#include <charconv>

#include "model/attempt_layout.h"
#include "storage/attempt_evidence.h"
#include "storage/attempt_tag.h"
#include "storage/layout.h"

namespace tpslurm::operations {
namespace {

std::string duration_words(std::chrono::seconds s) {
  const auto minutes = std::chrono::duration_cast<std::chrono::minutes>(s).count();
  if (minutes >= 1) return std::to_string(minutes) + " min " + std::to_string(s.count() % 60) + " s";
  return std::to_string(s.count()) + " s";
}

// Why absent must wait, or empty when it may go. The quiet period is measured as `serve`
// measured it at its searches (search_elapsed_s: a step of the wall clock does not count); the
// wall clock is only the fallback for the time left before its first search.
std::string absent_refusal(const journal::AttemptRecord& a, const model::Settings& settings, TimePoint now) {
  const auto intent = parse_utc(a.intent_at);
  if (!intent) return "the attempt has no intent time; it cannot have been searched for";
  const auto quiet = settings.resolve_quiet_period;
  if (a.complete_search_elapsed_s.value_or(-1) >= quiet.count()) return {};
  const bool measured = a.search_elapsed_s.has_value();
  const auto left = measured ? quiet - std::chrono::seconds(*a.search_elapsed_s)
                             : std::chrono::duration_cast<std::chrono::seconds>(*intent + quiet - now);
  if (left > std::chrono::seconds(0)) {
    return "the quiet period (TUNEPLANE_RESOLVE_QUIET_PERIOD) has not passed: " + duration_words(left) + " left" +
           (measured ? " at `serve`'s last search (" + a.searched_at + ")"
                     : " (until " + format_utc(*intent + quiet) + ")");
  }
  return "no complete search (every source answering) has run since the quiet period ended (" + duration_words(quiet) +
         " after the intent, as `serve` measures it); `serve` runs one at its next cycle " +
         "(last search: " + (a.searched_at.empty() ? std::string("none") : a.searched_at) + ", see `audit --blocked`)";
}

Resolution refusal(Refusal why, std::string message) { return {why, std::move(message), 0, {}}; }

std::optional<Resolution> not_blocked(const journal::AttemptRecord& a) {
  if (a.state == model::AttemptState::submit_unknown) return std::nullopt;
  return refusal(Refusal::not_blocked, attempt_name(a) + " is " + std::string(model::to_string(a.state)) +
                                           ": only a submit whose answer was lost (submit_unknown) is resolved");
}

// The operator's reference (a job id or a SLUID) to a job of `attempt`'s, read as its user.
std::optional<slurm::JobRef> job_ref(std::string_view reference, const journal::AttemptRecord& attempt) {
  slurm::JobRef ref;
  ref.unix_user = attempt.unix_user;
  if (!reference.empty() && reference[0] == 's') {
    ref.sluid = std::string(reference);
    return ref;
  }
  std::uint32_t id = 0;
  const auto [end, error] = std::from_chars(reference.data(), reference.data() + reference.size(), id);
  if (error != std::errc{} || end != reference.data() + reference.size() || id == 0) return std::nullopt;
  ref.job_id = id;
  return ref;
}

std::optional<Resolution> not_followed(const journal::AttemptRecord& a) {
  using model::AttemptState;
  if ((a.state == AttemptState::submitted || a.state == AttemptState::pending || a.state == AttemptState::running) &&
      a.slurm_job_id) {
    return std::nullopt;
  }
  return refusal(Refusal::not_followed,
                 attempt_name(a) + " is " + std::string(model::to_string(a.state)) +
                     ": only an attempt Slurm held (submitted, pending or running, with a job id) is resolved lost");
}

// Why Slurm's answer about the attempt's own job forbids calling it lost, or empty when Slurm
// has no such job (or only another job under a reused id).
std::optional<Resolution> still_held(slurm::SlurmClient& slurm, const journal::AttemptRecord& a,
                                     const model::Settings& settings) {
  const slurm::JobRef ref(*a.slurm_job_id, a.sluid, std::nullopt, a.unix_user);
  const std::string name = a.sluid.empty() ? std::to_string(*a.slurm_job_id) : a.sluid;
  slurm::JobsResult read = slurm.get_job(ref);
  if (!read.ok() && read.outcome == slurm::Outcome::not_found) return std::nullopt;
  if (!read.ok()) return refusal(Refusal::slurm_unreadable, "cannot read Slurm job " + name + ": " + read.message);
  const model::JobTag tag =
      storage::journaled_tag(settings, a.job_id, a.number, a.submit_token, a.tag_name, a.tag_workdir);
  for (const auto& record : read.jobs) {
    if (tag.identifies(record.tag())) {
      return refusal(Refusal::still_in_slurm, "Slurm still holds " + attempt_name(a) + "'s job " + name + " (" +
                                                  record.state.to_string() + "): it is not lost");
    }
  }
  return std::nullopt;
}

}  // namespace

std::string attempt_name(const journal::AttemptRecord& attempt) {
  return attempt.job_id + "/" + std::to_string(attempt.number);
}

Result<journal::AttemptRecord> find_attempt(journal::Journal& journal, std::string_view spec) {
  const auto slash = spec.rfind('/');
  const std::string job_id(slash == std::string_view::npos ? spec : spec.substr(0, slash));
  auto attempts = journal.attempts(job_id);
  if (!attempts.ok()) return attempts.error();
  if (attempts->empty()) return not_found("no attempts of job " + job_id + " in the journal");
  if (slash == std::string_view::npos) return attempts->back();
  const std::string_view number = spec.substr(slash + 1);
  for (const auto& a : *attempts) {
    if (std::to_string(a.number) == number) return a;
  }
  return not_found("job " + job_id + " has no attempt " + std::string(number) + " (give JOB/N, e.g. " + job_id + "/" +
                   std::to_string(attempts->back().number) + ")");
}

Result<Resolution> resolve_absent(journal::Journal& journal, const journal::AttemptRecord& attempt,
                                  const model::Settings& settings, TimePoint now, std::string_view by,
                                  std::string_view reason) {
  if (auto refused = not_blocked(attempt)) return *refused;
  if (std::string why = absent_refusal(attempt, settings, now); !why.empty()) {
    return refusal(Refusal::too_early, "refused to resolve " + attempt_name(attempt) + " as absent: " + why);
  }
  // A copy that started left its mark in logs/, whatever Slurm (or a cluster without slurmdbd)
  // still knows of it.
  const std::string dir =
      storage::recorded_attempt_dir(attempt.attempt_dir, settings.storage_root, attempt.job_id, attempt.number);
  auto started = storage::attempt_started(dir);
  if (!started.ok() || *started) {
    return refusal(Refusal::ran, "refused to resolve " + attempt_name(attempt) + " as absent: its logs/ " +
                                     (started.ok() ? "holds what a copy of it wrote when it started"
                                                   : "cannot be read (" + started.error().message() + ")") +
                                     "; `serve` adopts the job logs/slurm-job.json names, or give its id to "
                                     "`resolve --adopt`");
  }
  if (Status done = journal.resolve_absent(attempt.key(), by, reason); !done.ok()) return done.error();
  return Resolution{std::nullopt, attempt_name(attempt) + ": resolved absent; the tag stays watched", 0, "absent"};
}

Result<Resolution> resolve_adopt(journal::Journal& journal, slurm::SlurmClient& slurm,
                                 const journal::AttemptRecord& attempt, const model::Settings& settings,
                                 std::string_view reference, std::string_view by, std::string_view reason) {
  if (auto refused = not_blocked(attempt)) return *refused;
  const auto ref = job_ref(reference, attempt);
  if (!ref) {
    return refusal(Refusal::not_a_reference, "\"" + std::string(reference) + "\" is neither a job id nor a SLUID");
  }
  slurm::JobsResult read = slurm.get_job(*ref);
  if (!read.ok()) {
    // Slurm's own "no such job" is an answer about the reference; anything else says nothing.
    const Refusal why = read.outcome == slurm::Outcome::not_found ? Refusal::not_its_job : Refusal::slurm_unreadable;
    return refusal(why, "cannot read Slurm job " + std::string(reference) + ": " + read.message);
  }
  const model::JobTag tag = storage::journaled_tag(settings, attempt.job_id, attempt.number, attempt.submit_token,
                                                   attempt.tag_name, attempt.tag_workdir);
  std::uint32_t leader = 0;
  std::string sluid;
  for (const auto& record : read.jobs) {
    if (!tag.identifies(record.tag())) {
      return refusal(Refusal::not_its_job, "Slurm job " + std::to_string(record.job_id) +
                                               " does not carry the tag of " + attempt_name(attempt) + " (name \"" +
                                               record.name + "\", expected \"" + tag.name + "\")");
    }
    const std::uint32_t id = record.het_job_id.value_or(record.job_id);
    if (leader == 0) leader = id;
    if (record.job_id == id) sluid = record.sluid;
  }
  if (leader == 0) return refusal(Refusal::not_its_job, "Slurm returned no record for " + std::string(reference));
  journal::AttemptChanges changes;
  changes.slurm_job_id = leader;
  if (!sluid.empty()) changes.sluid = sluid;
  changes.found_by = "operator";
  changes.receipt = "{\"found_by\":\"operator\",\"job_id\":" + std::to_string(leader) + "}";
  const std::string words = "adopted by " + std::string(by) + (reason.empty() ? "" : ": " + std::string(reason));
  Status done = journal.transition(attempt.key(), model::AttemptState::submit_unknown, model::AttemptState::submitted,
                                   changes, {{"reason", words}, {"operator", std::string(by)}});
  if (!done.ok()) return done.error();
  return Resolution{std::nullopt, attempt_name(attempt) + ": adopted Slurm job " + std::to_string(leader), leader,
                    "adopted"};
}

Result<Resolution> resolve_lost(journal::Journal& journal, slurm::SlurmClient& slurm,
                                const journal::AttemptRecord& attempt, const model::Settings& settings,
                                std::string_view by, std::string_view reason) {
  if (auto refused = not_followed(attempt)) return *refused;
  const std::string dir =
      storage::recorded_attempt_dir(attempt.attempt_dir, settings.storage_root, attempt.job_id, attempt.number);
  if (storage::read_exit_evidence(dir).ok()) {
    return refusal(Refusal::end_known, std::string(model::kExitEvidenceFile) + " of " + attempt_name(attempt) +
                                           " holds the job's end: `serve` ends the attempt from it at its next cycle");
  }
  if (auto refused = still_held(slurm, attempt, settings)) return *refused;
  const std::string words = "resolved lost by " + std::string(by) + ": " + std::string(reason);
  journal::AttemptChanges changes;
  changes.outcome_reason = words;
  Status done = journal.transition(attempt.key(), attempt.state, model::AttemptState::lost, changes,
                                   {{"reason", words},
                                    {"operator", std::string(by)},
                                    {"resolution", "lost"},
                                    {"evidence", "operator; Slurm, asked, had no job with its id (or SLUID) and tag"},
                                    {"retry", "no: an operator resolved it lost"}});
  if (!done.ok()) return done.error();
  return Resolution{std::nullopt, attempt_name(attempt) + ": resolved lost; its cleanup runs at the next cycle", 0,
                    "lost"};
}

}  // namespace tpslurm::operations
