#include "api/routes.h"

#include <boost/url/parse.hpp>
#include <cctype>
#include <exception>
#include <vector>

#include "api/job_routes.h"
#include "config/logging.h"

namespace tpslurm::api {
namespace {

// "/v1/jobs/j1/audit?x" -> {"v1", "jobs", "j1", "audit"}, each segment percent-decoded; none
// for a target that is not a path. Empty segments are kept, so "/v1/jobs/" does not name the
// collection.
std::vector<std::string> path_segments(std::string_view target) {
  std::vector<std::string> segments;
  auto url = boost::urls::parse_origin_form(target);
  if (!url) return segments;
  for (const std::string segment : url->segments()) segments.push_back(segment);
  return segments;
}

// The token of "Bearer TOKEN" (the scheme in any case), or empty.
std::string_view bearer_token(std::string_view authorization) {
  constexpr std::string_view kScheme = "bearer ";
  if (authorization.size() <= kScheme.size()) return {};
  for (std::size_t i = 0; i < kScheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(authorization[i])) != kScheme[i]) return {};
  }
  std::string_view token = authorization.substr(kScheme.size());
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  return token;
}

Reply method_not_allowed(std::string_view allowed) {
  Reply reply = error_reply(405, "method_not_allowed", "this path takes " + std::string(allowed));
  reply.headers.emplace_back("Allow", std::string(allowed));
  return reply;
}

Reply unauthorized(std::string_view message) {
  Reply reply = error_reply(401, "unauthorized", message);
  reply.headers.emplace_back("WWW-Authenticate", "Bearer");
  return reply;
}

}  // namespace

Reply Routes::handle(const ApiRequest& request) {
  try {
    const auto segments = path_segments(request.target);
    if (segments.size() == 1 && segments[0] == "healthz") {
      if (request.method != "GET") return method_not_allowed("GET");
      return json_reply(200, boost::json::object{{"status", "ok"}});
    }
    const std::string_view token = bearer_token(request.authorization);
    if (token.empty()) {
      return unauthorized("this API needs `Authorization: Bearer TOKEN` with a token of TUNEPLANE_API_TOKENS_FILE");
    }
    const auto actor = m_context.tokens.authenticate(token);
    if (!actor) return unauthorized("the bearer token is not valid (unknown or revoked)");
    return route(request, *actor);
  } catch (const std::exception& e) {
    config::log_error({}, std::string("API: ") + e.what());
    return error_reply(500, "internal_error", e.what());
  }
}

Reply Routes::route(const ApiRequest& request, const std::string& actor) {
  const auto segments = path_segments(request.target);
  const std::string& method = request.method;
  const bool get = method == "GET";
  const bool post = method == "POST";
  if (segments.size() == 2 && segments[0] == "v1" && (segments[1] == "pause" || segments[1] == "resume")) {
    if (!post) return method_not_allowed("POST");
    return set_paused(m_context, actor, segments[1] == "pause", request.body);
  }
  if (segments.size() == 1 && segments[0] == "readyz") {
    if (!get) return method_not_allowed("GET");
    if (m_context.readiness == nullptr) return error_reply(503, "not_ready", "this API has no readiness checks");
    Readiness* readiness = m_context.readiness;
    return deferred_reply([readiness] { return readiness->reply(); });
  }
  if (segments.size() == 4 && segments[0] == "v1" && segments[1] == "attempts" && !segments[2].empty() &&
      segments[3] == "resolve") {
    if (!post) return method_not_allowed("POST");
    return resolve_attempt(m_context, actor, segments[2], request.body);
  }
  if (segments.size() == 1 && segments[0] == "metrics") {
    if (!get) return method_not_allowed("GET");
    return show_metrics(m_context);
  }
  if (segments.size() == 2 && segments[0] == "v1" && segments[1] == "events") {
    if (!get) return method_not_allowed("GET");
    return follow_events(m_context, request.target);
  }
  if (segments.size() < 2 || segments[0] != "v1" || segments[1] != "jobs") {
    return error_reply(404, "not_found", "no such path: " + std::string(request.target.substr(0, 200)));
  }
  if (segments.size() == 2) {
    if (get) return list_jobs(m_context, request.target);
    if (!post) return method_not_allowed("GET, POST");
    return submit_job(m_context, actor, request.body);
  }
  const std::string& job_id = segments[2];
  if (segments.size() == 3 && !job_id.empty()) {
    if (!get) return method_not_allowed("GET");
    return show_job(m_context, job_id);
  }
  if (segments.size() == 4 && !job_id.empty() && segments[3] == "audit") {
    if (!get) return method_not_allowed("GET");
    return show_audit(m_context, job_id);
  }
  if (segments.size() == 4 && !job_id.empty() && segments[3] == "logs") {
    if (!get) return method_not_allowed("GET");
    return show_logs(m_context, job_id, request.target);
  }
  if (segments.size() == 4 && !job_id.empty() && segments[3] == "cancel") {
    if (!post) return method_not_allowed("POST");
    return cancel_job(m_context, actor, job_id, request.body);
  }
  return error_reply(404, "not_found", "no such path: " + std::string(request.target.substr(0, 200)));
}

}  // namespace tpslurm::api
