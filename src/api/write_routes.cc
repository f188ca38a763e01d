// The routes that write desires (a new job, a cancel, pause and resume) and the mapping of
// journal errors to replies.
#include <boost/json/parse.hpp>

#include "api/body_fields.h"
#include "api/job_routes.h"
#include "config/logging.h"
#include "model/catalogs.h"
#include "model/launch_request.h"
#include "operations/desires.h"
#include "operations/submission.h"

namespace tpslurm::api {
namespace {

config::LogFields actor_fields(std::string_view job_id, const std::string& actor) {
  return {std::string(job_id), {}, {}, {}, {{"actor", actor}}};
}

}  // namespace

Reply no_job(std::string_view job_id) { return error_reply(404, "not_found", "no job " + std::string(job_id)); }

Reply error_from(const Error& error) {
  switch (error.kind()) {
    case ErrorKind::not_found: return error_reply(404, "not_found", error.message());
    case ErrorKind::transient: {
      Reply reply = error_reply(503, "unavailable", error.message() + "; try again");
      reply.headers.emplace_back("Retry-After", "1");
      return reply;
    }
    default:
      config::log_error({}, "API: " + error.message());
      return error_reply(500, "internal_error", error.message());
  }
}

namespace {

// What a submission amounted to, as the platform reads it: 201 created, 200 unchanged, 409 a
// different request under the id, 429 a user at its limit of live jobs (nothing journaled).
Reply submitted_reply(Result<operations::Submitted> submitted, const std::string& job_id, const std::string& actor) {
  if (!submitted.ok()) return error_from(submitted.error());
  if (submitted->outcome == model::SubmitOutcome::conflict) {
    return error_reply(409, "conflict", submitted->refusal);
  }
  if (submitted->outcome == model::SubmitOutcome::over_limit) {
    return error_reply(429, "too_many_live_jobs", submitted->refusal);
  }
  const bool created = submitted->outcome == model::SubmitOutcome::created;
  if (created) config::log_info(actor_fields(job_id, actor), "API: job submitted");
  Reply reply = json_reply(created ? 201 : 200, boost::json::object{{"job_id", job_id},
                                                                    {"outcome", created ? "created" : "unchanged"},
                                                                    {"request_sha256", submitted->request_sha256}});
  reply.headers.emplace_back("Location", "/v1/jobs/" + job_id);
  return reply;
}

}  // namespace

Reply submit_job(RouteContext& context, const std::string& actor, std::string_view body) {
  // Text that is not JSON at all is malformed (400); JSON that breaks the request's rules,
  // including the hostile-input limits, gets every problem (422).
  boost::system::error_code syntax;
  boost::json::parse(body, syntax);
  if (syntax) return error_reply(400, "malformed_body", "the body is not JSON: " + syntax.message());
  const std::shared_ptr<const model::JudgedUserMap> users = context.user_map();
  auto request =
      model::parse_launch_request(body, model::validation_context(context.catalogs, context.settings, users.get()));
  if (!request.ok()) {
    return error_reply(422, "invalid_request",
                       "the LaunchRequest has " + std::to_string(request.error().size()) + " problem(s)",
                       request.error());
  }
  const std::string job_id = request->job_id;
  operations::Submission submission{std::move(*request), {}, actor};
  submission.owner = model::owner_of(submission.request, users.get());
  if (context.submits == nullptr) {
    return submitted_reply(operations::submit_job(context.journal, context.settings, submission, context.hmac_key),
                           job_id, actor);
  }
  SubmitQueue* queue = context.submits;
  return started_reply([queue, submission = std::move(submission), job_id, actor](std::function<void(Reply)> done) mutable {
    queue->submit(std::move(submission), [done = std::move(done), job_id, actor](auto submitted) {
      done(submitted_reply(std::move(submitted), job_id, actor));
    });
  });
}

Reply cancel_job(RouteContext& context, const std::string& actor, std::string_view job_id, std::string_view body) {
  auto fields = read_fields(body, {{"reason", FieldType::string}, {"grace_seconds", FieldType::integer, 0, 86400}});
  if (auto* refused = std::get_if<Reply>(&fields)) return std::move(*refused);
  const auto& object = std::get<boost::json::object>(fields);
  std::optional<int> grace;
  if (auto seconds = integer_field(object, "grace_seconds")) grace = static_cast<int>(*seconds);
  auto cancelled =
      operations::request_cancel(context.journal, job_id, actor, string_field(object, "reason").value_or(""), grace);
  if (!cancelled.ok())
    return cancelled.error().kind() == ErrorKind::not_found ? no_job(job_id) : error_from(cancelled.error());
  std::string_view outcome = "requested";
  if (cancelled->outcome == operations::CancelOutcome::already_final) outcome = "already_final";
  if (cancelled->outcome == operations::CancelOutcome::already_requested) outcome = "already_requested";
  if (cancelled->outcome == operations::CancelOutcome::requested) {
    config::log_info(actor_fields(job_id, actor), "API: cancel requested");
  }
  return json_reply(200, boost::json::object{{"job_id", job_id},
                                             {"outcome", outcome},
                                             {"phase", model::to_string(cancelled->phase)},
                                             {"grace_seconds", grace ? boost::json::value(*grace) : nullptr}});
}

Reply set_paused(RouteContext& context, const std::string& actor, bool paused, std::string_view body) {
  auto fields = read_fields(body, {{"reason", FieldType::string}});
  if (auto* refused = std::get_if<Reply>(&fields)) return std::move(*refused);
  std::string reason = string_field(std::get<boost::json::object>(fields), "reason").value_or("");
  if (paused && reason.empty()) {
    model::Problems problems;
    problems.add("reason", "", "pause needs a reason (journaled with the token's name)");
    return error_reply(422, "invalid_request", "the body has invalid fields", problems);
  }
  if (!paused && reason.empty()) reason = "resumed";
  auto before = operations::set_paused(context.journal, paused, actor, reason);
  if (!before.ok()) return error_from(before.error());
  const bool changed = paused != before->has_value();
  if (changed) config::log_info({{}, {}, {}, {}, {{"actor", actor}}}, paused ? "API: paused" : "API: resumed");
  boost::json::object out{{"paused", paused}, {"changed", changed}};
  if (paused && !changed) {
    out["since"] = (*before)->set_at;
    out["by"] = (*before)->set_by;
  }
  return json_reply(200, out);
}

}  // namespace tpslurm::api
