#include "reconcile/search_round.h"

#include <map>

#include <boost/json.hpp>

#include "config/logging.h"
#include "reconcile/elapsed_board.h"
#include "reconcile/found_jobs.h"
#include "reconcile/journal_writer.h"
#include "reconcile/search_board.h"
#include "reconcile/step.h"

namespace tpslurm::reconcile {
namespace {

using journal::AttemptRecord;
using model::AttemptState;

enum class Why { blocked, safe_mode, watched };

struct Wanted {
  AttemptRecord attempt;
  Why why;
  std::chrono::seconds blocked{0};  // Why::blocked: how long since the intent
};

std::string report_json(const slurm::SearchResult& result) {
  boost::json::array sources;
  for (const auto& source : result.sources) {
    boost::json::object entry{{"source", slurm::to_string(source.source)},
                              {"outcome", slurm::to_string(source.outcome)},
                              {"records", source.records},
                              {"message", source.message}};
    if (source.absent) entry["absent"] = true;
    sources.push_back(std::move(entry));
  }
  return boost::json::serialize(boost::json::object{
      {"complete", result.complete()}, {"matches", result.matches.size()}, {"sources", std::move(sources)}});
}

TimePoint time_or(const std::string& text, TimePoint fallback) { return parse_utc(text).value_or(fallback); }

// How long ago the blocked attempt's intent was, as the ElapsedBoard measures it.
std::chrono::seconds blocked_for(Services& services, const AttemptRecord& attempt, TimePoint now) {
  return services.elapsed.since("blocked:" + attempt.submit_token, time_or(attempt.intent_at, now));
}

// Wants a complete search: its quiet period passed and no complete search ran after it.
bool needs_complete(const Services& services, const AttemptRecord& attempt, std::chrono::seconds blocked) {
  const auto quiet = services.settings.resolve_quiet_period;
  return blocked >= quiet && attempt.complete_search_elapsed_s.value_or(-1) < quiet.count();
}

std::vector<Wanted> wanted_attempts(Services& services, bool safe_mode, TimePoint now) {
  std::vector<Wanted> out;
  journal::Journal& journal = services.journal.read();
  auto add = [&](AttemptState state, Why why) {
    auto attempts = journal.attempts_in(state);
    if (!attempts.ok()) return;
    for (auto& a : *attempts) {
      if (why == Why::watched &&
          (a.found_by.size() || now - time_or(a.updated_at, now) > kWatchResolved || a.intent_at.empty())) {
        continue;
      }
      const auto blocked = why == Why::blocked ? blocked_for(services, a, now) : std::chrono::seconds(0);
      out.push_back({std::move(a), why, blocked});
    }
  };
  add(AttemptState::submit_unknown, Why::blocked);
  if (safe_mode) {
    add(AttemptState::prepared, Why::safe_mode);
    add(AttemptState::submitting, Why::safe_mode);
  }
  add(AttemptState::abandoned, Why::watched);
  return out;
}

std::vector<std::uint32_t> known_ids(Services& services) {
  std::vector<std::uint32_t> ids;
  auto attempts = services.journal.read().all_attempts();
  if (!attempts.ok()) return ids;
  for (const auto& a : *attempts) {
    if (a.slurm_job_id) ids.push_back(*a.slurm_job_id);
  }
  return ids;
}

void journal_report(Services& services, const Wanted& wanted, const slurm::SearchResult& result) {
  const AttemptRecord& attempt = wanted.attempt;
  const std::string report = report_json(result);
  journal::AttemptChanges changes;
  changes.search_report = report;
  changes.search_complete = result.complete();
  changes.search_elapsed_s = wanted.blocked.count();
  // An event only when the report says something new: a search every cycle is not history.
  const std::string kind = report == attempt.search_report ? "" : "search";
  Status written = services.journal.write([&](journal::Journal& j) {
    return j.update_attempt(
        attempt.key(), attempt.state, changes, kind,
        {{"reason", result.complete() ? "complete search" : "incomplete search"}, {"report", report}});
  });
  if (!written.ok()) {
    config::log(config::LogLevel::warn, attempt_fields(attempt), "search report: " + written.error().message());
  }
}

// A job carrying a resolved tag appeared after all: it is cancelled, never adopted.
int cancel_late_arrivals(Services& services, const AttemptRecord& attempt, const slurm::SearchResult& result) {
  int cancelled = 0;
  const model::JobTag tag = tag_of(services, attempt);
  for (const FoundJob& job : group_matches(result.matches)) {
    if (!job.live()) continue;
    slurm::CancelResult answer = services.slurm.cancel(slurm::JobRef{job.leader_id, job.leader_sluid, tag, attempt.unix_user});
    const std::string words = "Slurm job " + std::to_string(job.leader_id) +
                              " appeared after the attempt was resolved absent: " +
                              (answer.ok() ? "cancelled" : "cancel failed (" + answer.message + "), retried");
    config::log(config::LogLevel::warn, job_fields(job.leader_id, job.leader_sluid, attempt), words);
    (void)services.journal.write([&](journal::Journal& j) {
      return j.record_event(attempt.job_id, attempt.number, "late_arrival",
                            {{"reason", words}, {"slurm_job_id", std::to_string(job.leader_id)}});
    });
    if (answer.ok()) ++cancelled;
  }
  return cancelled;
}

// One search for the wanted attempts of one user (SearchOptions::as_user).
void search_as(Services& services, const std::vector<const Wanted*>& group, bool safe_mode, int round, TimePoint now,
               SearchRoundReport& report) {
  std::vector<model::JobTag> tags;
  TimePoint earliest = now;
  bool full = safe_mode || round % kFullEvery == 1;
  for (const Wanted* w : group) {
    tags.push_back(tag_of(services, w->attempt));
    earliest = std::min(earliest, time_or(w->attempt.intent_at, time_or(w->attempt.created_at, now)));
    if (w->why == Why::blocked && needs_complete(services, w->attempt, w->blocked)) full = true;
  }
  slurm::SearchOptions options;
  options.full = full;
  options.as_user = group.front()->attempt.unix_user;
  if (!full) options.known_ids = known_ids(services);
  slurm::BatchSearchResult answer = services.slurm.find_jobs_by_tags(tags, earliest, options);
  if (!full) report.complete = false;
  for (std::size_t i = 0; i < group.size() && i < answer.searches.size(); ++i) {
    const slurm::SearchResult& result = answer.searches[i];
    const Wanted& w = *group[i];
    if (!result.matches.empty()) ++report.found;
    if (!result.complete()) report.complete = false;
    if (w.why == Why::watched) {
      report.late_cancelled += cancel_late_arrivals(services, w.attempt, result);
      continue;
    }
    services.searches.put(w.attempt.submit_token, result, now);
    if (w.why == Why::blocked) journal_report(services, w, result);
  }
}

}  // namespace

SearchRoundReport run_search_round(Services& services, bool safe_mode, int round) {
  SearchRoundReport report;
  const TimePoint now = services.clock.now();
  const std::vector<Wanted> wanted = wanted_attempts(services, safe_mode, now);
  if (wanted.empty()) return report;
  // Per-user mode: each user's attempts are searched in that user's own listings, the only
  // ones that show every job of the user whatever the site's PrivateData; one-user mode has
  // one group, the service identity's.
  std::map<std::string, std::vector<const Wanted*>> by_user;
  for (const auto& w : wanted) by_user[w.attempt.unix_user].push_back(&w);
  report.ran = true;
  report.attempts = static_cast<int>(wanted.size());
  report.complete = true;
  for (const auto& [user, group] : by_user) search_as(services, group, safe_mode, round, now, report);
  return report;
}

}  // namespace tpslurm::reconcile
