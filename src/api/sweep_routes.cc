// The sweep routes: POST /v1/sweeps journals a sweep and its runs' jobs (operations/
// sweep_submission.h) and answers as POST /v1/jobs does; GET /v1/sweeps/{id} reads it back.
#include <boost/json/parse.hpp>

#include "api/job_routes.h"
#include "config/logging.h"
#include "model/catalogs.h"
#include "model/sweep_request.h"
#include "operations/sweep_submission.h"
#include "operations/sweep_view.h"

namespace tpslurm::api {
namespace {

Reply sweep_reply(Result<operations::SweepSubmitted> submitted, const std::string& sweep_id,
                  const std::string& actor) {
  if (!submitted.ok()) return error_from(submitted.error());
  if (submitted->outcome == model::SubmitOutcome::conflict) return error_reply(409, "conflict", submitted->refusal);
  if (submitted->outcome == model::SubmitOutcome::over_limit) {
    return error_reply(429, "too_many_live_jobs", submitted->refusal);
  }
  const bool created = submitted->outcome == model::SubmitOutcome::created;
  if (created) {
    config::log_info({{}, {}, {}, {}, {{"actor", actor}, {"sweep_id", sweep_id}}},
                     "API: sweep submitted with " + std::to_string(submitted->job_ids.size()) + " runs");
  }
  boost::json::array job_ids;
  for (const std::string& id : submitted->job_ids) job_ids.emplace_back(id);
  Reply reply = json_reply(created ? 201 : 200, boost::json::object{{"sweep_id", sweep_id},
                                                                    {"outcome", created ? "created" : "unchanged"},
                                                                    {"request_sha256", submitted->request_sha256},
                                                                    {"job_ids", std::move(job_ids)}});
  reply.headers.emplace_back("Location", "/v1/sweeps/" + sweep_id);
  return reply;
}

}  // namespace

Reply submit_sweep(RouteContext& context, const std::string& actor, std::string_view body) {
  boost::system::error_code syntax;
  boost::json::parse(body, syntax);
  if (syntax) return error_reply(400, "malformed_body", "the body is not JSON: " + syntax.message());
  const std::shared_ptr<const model::JudgedUserMap> users = context.user_map();
  auto sweep =
      model::parse_sweep_request(body, model::validation_context(context.catalogs, context.settings, users.get()));
  if (!sweep.ok()) {
    return error_reply(422, "invalid_request", "the sweep has " + std::to_string(sweep.error().size()) + " problem(s)",
                       sweep.error());
  }
  const std::string sweep_id = sweep->sweep_id;
  operations::SweepSubmission submission{std::move(*sweep), {}, actor};
  submission.owner = model::owner_of(submission.request.runs.front(), users.get());
  if (context.submits == nullptr) {
    return sweep_reply(
        operations::submit_sweep(context.journal, context.settings, submission, context.hmac_key), sweep_id, actor);
  }
  SubmitQueue* queue = context.submits;
  return started_reply(
      [queue, submission = std::move(submission), sweep_id, actor](std::function<void(Reply)> done) mutable {
        queue->submit_sweep(std::move(submission), [done = std::move(done), sweep_id, actor](auto submitted) {
          done(sweep_reply(std::move(submitted), sweep_id, actor));
        });
      });
}

Reply show_sweep(RouteContext& context, std::string_view sweep_id) {
  auto view = operations::sweep_status(context.journal, sweep_id);
  if (!view.ok()) return error_from(view.error());
  if (!view->has_value()) return error_reply(404, "not_found", "no sweep " + std::string(sweep_id));
  return json_reply(200, **view);
}

}  // namespace tpslurm::api
