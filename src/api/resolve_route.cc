// POST /v1/attempts/{attempt}/resolve: an operator's answer to a submit whose answer was lost
// (`absent`, `adopt`) or to a job Slurm forgot (`lost`), with the rules of `resolve`
// (operations/resolution.h). `absent` is journal only and answered at once; `adopt` and `lost`
// read the job from Slurm, so they run as deferred work off the server's thread.
#include "api/body_fields.h"
#include "api/job_routes.h"
#include "config/logging.h"
#include "operations/resolution.h"

namespace tpslurm::api {
namespace {

Reply refused_reply(const operations::Resolution& answer) {
  switch (*answer.refused) {
    case operations::Refusal::not_blocked: return error_reply(409, "not_blocked", answer.message);
    case operations::Refusal::too_early: return error_reply(409, "too_early", answer.message);
    case operations::Refusal::ran: return error_reply(409, "ran", answer.message);
    case operations::Refusal::not_a_reference: {
      model::Problems problems;
      problems.add("adopt", "", answer.message + "; give the Slurm job id (digits) or its SLUID (s…)");
      return error_reply(422, "invalid_request", "the body has invalid fields", problems);
    }
    case operations::Refusal::not_its_job: return error_reply(422, "not_this_attempt", answer.message);
    case operations::Refusal::slurm_unreadable: return error_reply(502, "slurm_unavailable", answer.message);
    case operations::Refusal::not_followed: return error_reply(409, "not_followed", answer.message);
    case operations::Refusal::still_in_slurm: return error_reply(409, "still_in_slurm", answer.message);
    case operations::Refusal::end_known: return error_reply(409, "end_known", answer.message);
  }
  return error_reply(500, "internal_error", answer.message);
}

Reply resolution_reply(const Result<operations::Resolution>& answer, const journal::AttemptRecord& attempt,
                       const std::string& actor) {
  if (!answer.ok()) return error_from(answer.error());
  if (answer->refused) return refused_reply(*answer);
  config::log_info({attempt.job_id, attempt.number, {}, {}, {{"actor", actor}}}, "API: " + answer->message);
  boost::json::object out{{"attempt", operations::attempt_name(attempt)},
                          {"job_id", attempt.job_id},
                          {"number", attempt.number},
                          {"resolution", answer->resolution}};
  if (answer->slurm_job_id != 0) out["slurm_job_id"] = answer->slurm_job_id;
  return json_reply(200, out);
}

Reply invalid(std::string_view field, std::string_view fix) {
  model::Problems problems;
  problems.add(std::string(field), "", std::string(fix));
  return error_reply(422, "invalid_request", "the body has invalid fields", problems);
}

}  // namespace

Reply resolve_attempt(RouteContext& context, const std::string& actor, std::string_view spec, std::string_view body) {
  auto fields = read_fields(body, {{"absent", FieldType::boolean},
                                   {"adopt", FieldType::string},
                                   {"lost", FieldType::boolean},
                                   {"reason", FieldType::string}});
  if (auto* refused = std::get_if<Reply>(&fields)) return std::move(*refused);
  const auto& object = std::get<boost::json::object>(fields);
  const bool absent = boolean_field(object, "absent").value_or(false);
  const bool lost = boolean_field(object, "lost").value_or(false);
  const std::string adopt = string_field(object, "adopt").value_or("");
  const std::string reason = string_field(object, "reason").value_or("");
  if (int(absent) + int(lost) + int(!adopt.empty()) != 1) {
    return invalid("absent",
                   "give exactly one of \"absent\": true or \"lost\": true (each with a reason), or \"adopt\": "
                   "JOB ID or SLUID");
  }
  if ((absent || lost) && reason.empty()) {
    return invalid("reason",
                   std::string(absent ? "absent" : "lost") + " needs a reason (journaled with the token's name)");
  }
  auto attempt = operations::find_attempt(context.journal, spec);
  if (!attempt.ok()) return error_from(attempt.error());
  if (absent) {
    return resolution_reply(
        operations::resolve_absent(context.journal, *attempt, context.settings, context.clock.now(), actor, reason),
        *attempt, actor);
  }
  if (context.slurm == nullptr) {
    return error_reply(503, "slurm_unavailable", "this API has no Slurm client to read the job from");
  }
  RouteContext* shared = &context;
  return deferred_reply([shared, attempt = *attempt, actor, adopt, lost, reason] {
    return resolution_reply(
        lost ? operations::resolve_lost(shared->journal, *shared->slurm, attempt, shared->settings, actor, reason)
             : operations::resolve_adopt(shared->journal, *shared->slurm, attempt, shared->settings, adopt, actor,
                                         reason),
        attempt, actor);
  });
}

}  // namespace tpslurm::api
