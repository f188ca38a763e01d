// GET /metrics: the daemon's metrics with the journal's gauges read at the scrape, on the
// API's own journal connection (one aggregate query, Journal::gauges()).
#include <map>

#include "api/job_routes.h"
#include "model/attempt_state.h"

namespace tpslurm::api {
namespace {

using model::AttemptState;
using model::CleanupStep;

// Every state and every open cleanup step is shown, a zero too, so that a series does not
// vanish while nothing is in it; so is every mapped user in per-user mode (only the map's: a
// request's user is not a label until the map has it).
metrics::ScrapeGauges scrape_gauges(const journal::JournalGauges& journal, const model::UserMap* users) {
  metrics::ScrapeGauges out;
  out.journal_bytes = journal.file_bytes;
  std::map<AttemptState, std::int64_t> by_state;
  std::map<CleanupStep, std::int64_t> by_step;
  for (const journal::AttemptGroup& group : journal.open_attempts) {
    by_state[group.state] += group.count;
    if (model::is_final(group.state)) by_step[group.cleanup] += group.count;
    if (group.state != AttemptState::submit_unknown) continue;
    out.blocked_submissions += group.count;
    const auto intent = parse_utc(group.oldest_intent_at);
    if (intent && (!out.oldest_blocked_intent || *intent < *out.oldest_blocked_intent)) {
      out.oldest_blocked_intent = intent;
    }
  }
  for (AttemptState state : model::kAllAttemptStates) {
    out.attempts_by_state.emplace_back(std::string(model::to_string(state)), by_state[state]);
  }
  for (CleanupStep step : model::kAllCleanupSteps) {
    if (step == CleanupStep::closed) continue;
    out.cleanup_backlog.emplace_back(std::string(model::to_string(step)), by_step[step]);
  }
  if (users != nullptr) {
    const std::map<std::string, std::int64_t> live(journal.live_jobs_by_user.begin(), journal.live_jobs_by_user.end());
    for (const auto& [name, user] : users->all()) {
      const auto found = live.find(name);
      out.live_jobs_by_user.emplace_back(name, found == live.end() ? 0 : found->second);
    }
  }
  return out;
}

}  // namespace

Reply show_metrics(RouteContext& context) {
  if (context.metrics == nullptr) return error_reply(404, "not_found", "this server keeps no metrics");
  const std::shared_ptr<const model::JudgedUserMap> users = context.user_map();
  auto gauges = context.journal.gauges(users != nullptr);
  if (!gauges.ok()) return error_from(gauges.error());
  auto text = context.metrics->render(scrape_gauges(*gauges, users != nullptr ? &users->map : nullptr));
  if (!text.ok()) return error_from(text.error());
  Reply reply;
  reply.body = std::move(*text);
  reply.content_type = std::string(metrics::kContentType);
  return reply;
}

}  // namespace tpslurm::api
