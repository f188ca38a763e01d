// A job slurmctld no longer knows (docs/architecture.md §5): the status poll stopped reporting it, or
// a GET by its id — at identify, at release — answered "unknown job". Whether it ran, and how it
// ended, is read from what is left:
//   1. the search by tag (slurmctld's listing and slurmdbd): slurmdbd's record of the job's end
//      decides, with logs/exit.json for the exit status (slurmdbd knows a cancel that exit.json
//      reads as a program killed by SIGTERM); slurmctld listing it after all: look again;
//   2. logs/exit.json alone, when every source answered and slurmdbd has no end of it (no record,
//      one slurmctld never closed because it forgot the job, or a site without slurmdbd);
//   3. every source answered and none knows how it ended: a job that no record (Slurm's, or the
//      journal's: followed running, given nodes) shows was given nodes and whose logs/ is empty (Slurm opens the batch
//      step's output there when it launches it, and the batch script's first act writes logs/slurm-job.json) never
//      started, and a job Slurm forgot never will — it is retried at no cost to the job's attempts (held or already
//      released alike); any other is `lost`, with the evidence;
//   4. a source that did not answer, or a slurmdbd that is behind (slurmctld's DBD agent queue
//      still holds records, as diag shows): nothing is concluded; the search is tried again,
//      spaced (retry_board.h), and said once.
// A job id that now names another job (a record there without the attempt's tag) is the same
// case: slurmctld let the attempt's job go before it gave the id away, since it never holds two
// live jobs with one id. The search by tag never returns that other job (it lacks the tag), and
// slurmdbd's records are found by the attempt's job name, so the other job never decides.
#include "journal/components.h"
#include "reconcile/found_jobs.h"
#include "reconcile/slurm_verdict.h"
#include "reconcile/status_board.h"
#include "reconcile/steps.h"
#include "storage/attempt_evidence.h"

namespace tpslurm::reconcile {
namespace {

using model::AttemptState;

constexpr std::string_view kRetryKey = "forgotten";

// Records of the attempt's job among the search's matches: every component's own id, or before
// identify the receipt's id and the components of its heterogeneous job.
std::vector<model::JobSnapshot> records_of(const Step& step, const slurm::SearchResult& search, bool& in_slurmctld) {
  const std::vector<std::uint32_t> ids =
      journal::component_ids(journal::parse_components(step.attempt.components), step.attempt.slurm_job_id);
  std::vector<model::JobSnapshot> records;
  for (const auto& match : search.matches) {
    const bool ours = std::find(ids.begin(), ids.end(), match.job.job_id) != ids.end() ||
                      (match.job.het_job_id && match.job.het_job_id == step.attempt.slurm_job_id);
    if (!ours) continue;
    records.push_back(match.job);
    if (match.source == slurm::SearchSource::slurmctld) in_slurmctld = true;
  }
  return records;
}

StepEnd not_every_source_answered(Step& step, const slurm::SearchResult& search) {
  const std::string id = std::to_string(step.attempt.slurm_job_id.value_or(0));
  return step.retry_said_once(kRetryKey, "end unknown", "slurm.forgot",
                              "Slurm no longer knows job " + id + " and not every source answered (" + search.message +
                                  "): whether and how it ran is unknown; looking again, spaced",
                              config::LogLevel::warn,
                              ". If Slurm forgot it for good: `tuneplane-slurm resolve " + step.job.job_id + "/" +
                                  std::to_string(step.attempt.number) + " --lost --reason TEXT`");
}

// Why slurmdbd's silence proves nothing yet (slurmctld still holds records for it, or cannot say
// whether it does), or empty. Asked only of a search that consulted slurmdbd.
std::string slurmdbd_behind(Step& step, const slurm::SearchResult& search) {
  const bool consulted = std::any_of(search.sources.begin(), search.sources.end(),
                                     [](const auto& s) { return s.source == slurm::SearchSource::slurmdbd; });
  if (!consulted) return {};
  const slurm::DiagResult diag = step.services.slurm.diag();
  if (!diag.ok()) return "slurmctld's DBD agent queue cannot be read (" + diag.message + ")";
  if (!diag.dbd_agent_queue_size) return "diag does not show slurmctld's DBD agent queue";
  if (*diag.dbd_agent_queue_size > 0) {
    return "slurmctld still holds " + std::to_string(*diag.dbd_agent_queue_size) +
           " record(s) for slurmdbd (DBD agent queue)";
  }
  return {};
}

StepEnd waiting_for_slurmdbd(Step& step, const std::string& behind) {
  return step.retry_said_once(kRetryKey, "slurmdbd behind", "slurm.forgot",
                              "Slurm no longer knows job " + std::to_string(step.attempt.slurm_job_id.value_or(0)) +
                                  " and slurmdbd has no end of it, but " + behind +
                                  ": its silence proves nothing yet; looking again, spaced");
}

// "slurmctld job list and slurmdbd job search", or "slurmctld job list (no accounting)".
std::string sources_asked(const slurm::SearchResult& search) {
  std::string out;
  for (const auto& source : search.sources) {
    out += (out.empty() ? "" : " and ") + std::string(slurm::to_string(source.source)) +
           (source.absent ? " (absent: no accounting)" : "");
  }
  return out;
}

// The journal saw the job run: it was followed running, or a component was given nodes.
bool journal_says_ran(const Step& step) {
  if (step.attempt.state == AttemptState::running) return true;
  const auto components = journal::parse_components(step.attempt.components);
  return std::any_of(components.begin(), components.end(), [](const journal::JournaledComponent& c) {
    return !c.nodes.empty() && c.nodes != "None assigned";
  });
}

// Nothing of the job is left anywhere and it never ran: the job goes on with a new attempt.
StepEnd never_ran(Step& step) {
  const std::string words = "Slurm forgot job " + std::to_string(step.attempt.slurm_job_id.value_or(0)) +
                            " before it started, and no source saw it run";
  journal::AttemptChanges changes;
  changes.outcome_reason = words;
  changes.failure_phase = "slurm";
  journal::EventDetail detail{{"reason", words},
                              {"evidence", "every source answered: no record shows it ran, and its logs/ is empty"}};
  retry_at_no_cost(step, words, changes, detail);
  return step.move(AttemptState::failed, changes, detail);
}

// It may have run, and no source knows how it ended. `records`: slurmdbd's, without an end.
StepEnd lost(Step& step, const slurm::SearchResult& search, const std::vector<model::JobSnapshot>& records) {
  Verdict v;
  v.state = AttemptState::lost;
  v.slurm_state = "?";
  v.outcome = records.empty() ? "no source knows the job any more (" + sources_asked(search) + ", exit.json)"
                              : "slurmctld forgot the job and slurmdbd's record of it has no end; no exit.json";
  return end_attempt(step, v, observed_changes(v, records),
                     "every source answered (" + sources_asked(search) +
                         "); it may have run: its logs/ is not empty "
                         "or a record shows it was given nodes");
}

}  // namespace

bool another_jobs(const std::vector<model::JobSnapshot>& records, const model::JobTag& tag) {
  return !records.empty() && std::none_of(records.begin(), records.end(),
                                          [&](const model::JobSnapshot& r) { return tag.identifies(r.tag()); });
}

std::string another_jobs_words(const std::vector<model::JobSnapshot>& records, const model::JobTag& tag) {
  if (records.empty()) return "another job";
  const model::JobSnapshot& r = records.front();
  return "job " + std::to_string(r.job_id) + " named \"" + r.name + "\", comment \"" + r.comment +
         "\", working directory \"" + r.working_directory + "\" carries " + std::to_string(tag.matches(r.tag())) +
         " of the attempt's 3 marks (its job carries at least 2)";
}

StepEnd conclude_id_reused(Step& step, const std::string& other) {
  step.services.statuses.note_id_reused(step.attempt.submit_token, other);  // for the polls that follow
  if (step.services.statuses.warn_once(step.attempt.submit_token + ":id-reused")) {
    const std::string id = std::to_string(step.attempt.slurm_job_id.value_or(0));
    const std::string words = "Slurm job id " + id + " now names another job (" + other +
                              "): slurmctld let the attempt's job go and gave its id away. That job is left "
                              "alone; the attempt is concluded from slurmdbd and its logs/";
    step.log(config::LogLevel::warn, words);
    if (step.event("slurm.id_reused", {{"reason", words}, {"slurm_job_id", id}}) == StepEnd::failed) {
      return StepEnd::failed;
    }
  }
  return conclude_forgotten(step);
}

bool attempt_started(const Step& step) {
  auto started = storage::attempt_started(attempt_dir_of(step.services, step.attempt));
  return !started.ok() || *started;  // unreadable: it may have started
}

StepEnd conclude_forgotten(Step& step) {
  if (step.not_due(kRetryKey) || step.budget_refuses()) return StepEnd::wait;
  const std::optional<ExitEvidence> exit = exit_evidence(step);
  const model::JobTag tag = tag_of(step.services, step.attempt);
  const TimePoint intent = parse_utc(step.attempt.intent_at).value_or(step.services.clock.now());
  const slurm::SearchResult search = step.services.slurm.find_jobs_by_tag(tag, intent, step.attempt.unix_user);
  bool in_slurmctld = false;
  const std::vector<model::JobSnapshot> records = records_of(step, search, in_slurmctld);
  if (in_slurmctld) return step.retry_spaced(kRetryKey);  // slurmctld lists it after all
  if (!records.empty()) {
    Verdict v = judge(records, journal::parse_components(step.attempt.components), exit,
                      step.attempt.state == AttemptState::running);
    if (model::is_final(v.state) && v.known) {
      v.holds_resources = false;  // slurmctld has let it go
      return end_attempt(step, v, observed_changes(v, records), exit ? "slurmdbd and exit.json" : "slurmdbd");
    }
  }
  // Before exit.json: slurmdbd may know a cancel that exit.json shows as a program that died.
  if (!search.complete()) return not_every_source_answered(step, search);
  if (std::string behind = slurmdbd_behind(step, search); !behind.empty()) return waiting_for_slurmdbd(step, behind);
  // slurmdbd has no end of it, and slurmctld no record: at most a record slurmctld never closed.
  if (exit) {
    Verdict v = judge_exit(*exit);
    return end_attempt(step, v, observed_changes(v, records), "exit.json");
  }
  // Slurm opens the batch step's output in logs/ when it launches it: an empty logs/, with no
  // record (Slurm's or the journal's) that ever had nodes, is a job that never started, and one
  // Slurm forgot cannot start.
  if (!journal_says_ran(step) && std::none_of(records.begin(), records.end(), ran) && !attempt_started(step)) {
    return never_ran(step);
  }
  return lost(step, search, records);
}

}  // namespace tpslurm::reconcile
