#include "support/journal_story.h"

namespace tpslurm::testing {

using model::AttemptState;

Status add_blocked_job(const std::string& journal_path, const std::string& job_id, TimePoint intent) {
  ManualClock clock(intent);
  auto journal = journal::Journal::open(journal_path, clock);
  if (!journal.ok()) return journal.error();
  journal::Journal& j = **journal;
  if (auto added = j.add_job({job_id, "{}", "hash-" + job_id, "", "", 1}); !added.ok()) return added.error();
  if (auto attempt = j.add_attempt(job_id, 1, "token-" + job_id, "in"); !attempt.ok()) return attempt.error();
  const AttemptState path[] = {AttemptState::preparing, AttemptState::prepared, AttemptState::submitting,
                               AttemptState::submit_unknown};
  for (std::size_t i = 0; i + 1 < std::size(path); ++i) {
    if (Status s = j.transition({job_id, 1}, path[i], path[i + 1], {}, {}); !s.ok()) return s;
  }
  return {};
}

Status record_search(const std::string& journal_path, const std::string& job_id, TimePoint at, bool complete) {
  ManualClock clock(at);
  auto journal = journal::Journal::open(journal_path, clock);
  if (!journal.ok()) return journal.error();
  journal::AttemptChanges changes;
  changes.search_report =
      R"({"complete":)" + std::string(complete ? "true" : "false") +
      R"(,"matches":0,"sources":[{"source":"slurmctld job list","outcome":"ok","records":3,"message":""}]})";
  changes.search_complete = complete;
  auto attempts = (*journal)->attempts(job_id);
  if (!attempts.ok()) return attempts.error();
  if (attempts->empty()) return not_found("no attempt of " + job_id);
  const auto intent = parse_utc(attempts->front().intent_at).value_or(at);
  changes.search_elapsed_s = std::chrono::duration_cast<std::chrono::seconds>(at - intent).count();
  return (*journal)->update_attempt({job_id, 1}, AttemptState::submit_unknown, changes, "search", {});
}

}  // namespace tpslurm::testing
