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
// vanish while nothing is in it.
metrics::ScrapeGauges scrape_gauges(const journal::JournalGauges& journal) {
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
  return out;
}

}  // namespace

Reply show_metrics(RouteContext& context) {
  if (context.metrics == nullptr) return error_reply(404, "not_found", "this server keeps no metrics");
  auto gauges = context.journal.gauges();
  if (!gauges.ok()) return error_from(gauges.error());
  auto text = context.metrics->render(scrape_gauges(*gauges));
  if (!text.ok()) return error_from(text.error());
  Reply reply;
  reply.body = std::move(*text);
  reply.content_type = std::string(metrics::kContentType);
  return reply;
}

}  // namespace tpslurm::api
