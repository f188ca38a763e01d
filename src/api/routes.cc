#include "api/routes.h"

#include <boost/url/parse.hpp>
#include <cctype>
#include <exception>
#include <variant>
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

Reply not_found(std::string_view target) {
  return error_reply(404, "not_found", "no such path: " + std::string(target.substr(0, 200)));
}

Reply forbidden(const Caller& caller, Scope needed) {
  return error_reply(403, "forbidden",
                     "this route needs the scope `" + std::string(to_string(needed)) + "`; the token of " +
                         caller.name + " has " + caller.scopes.text() +
                         " (TUNEPLANE_API_TOKENS_FILE names each token's scopes)");
}

// What a request asks for: the route its path and method name and the scope that needs.
struct Matched {
  RouteName route;
  Scope scope;
};

// The route, or the reply when there is none: 404 for an unknown path, 405 (with `Allow`) for
// a known one asked with another method. Every route is here, with the scope it needs.
std::variant<Matched, Reply> match(const std::vector<std::string>& segments, std::string_view method,
                                   std::string_view target) {
  const bool get = method == "GET";
  const bool post = method == "POST";
  const auto only = [&](bool allowed, std::string_view methods, Matched matched) -> std::variant<Matched, Reply> {
    if (!allowed) return method_not_allowed(methods);
    return matched;
  };
  if (segments.size() == 1 && segments[0] == "readyz") return only(get, "GET", {RouteName::readyz, Scope::read});
  if (segments.size() == 1 && segments[0] == "metrics") return only(get, "GET", {RouteName::metrics, Scope::read});
  if (segments.empty() || segments[0] != "v1") return not_found(target);
  if (segments.size() == 2 && segments[1] == "pause") return only(post, "POST", {RouteName::pause, Scope::operate});
  if (segments.size() == 2 && segments[1] == "resume") return only(post, "POST", {RouteName::resume, Scope::operate});
  if (segments.size() == 2 && segments[1] == "events") return only(get, "GET", {RouteName::events, Scope::read});
  if (segments.size() == 4 && segments[1] == "attempts" && !segments[2].empty() && segments[3] == "resolve") {
    return only(post, "POST", {RouteName::resolve, Scope::operate});
  }
  if (segments.size() == 2 && segments[1] == "sweeps") {
    return only(post, "POST", {RouteName::submit_sweep, Scope::submit});
  }
  if (segments.size() == 3 && segments[1] == "sweeps" && !segments[2].empty()) {
    return only(get, "GET", {RouteName::show_sweep, Scope::read});
  }
  if (segments.size() < 2 || segments[1] != "jobs") return not_found(target);
  if (segments.size() == 2) {
    if (get) return Matched{RouteName::list_jobs, Scope::read};
    return only(post, "GET, POST", {RouteName::submit_job, Scope::submit});
  }
  if (segments[2].empty()) return not_found(target);
  if (segments.size() == 3) return only(get, "GET", {RouteName::show_job, Scope::read});
  if (segments.size() == 4 && segments[3] == "audit") return only(get, "GET", {RouteName::show_audit, Scope::read});
  if (segments.size() == 4 && segments[3] == "logs") return only(get, "GET", {RouteName::show_logs, Scope::read});
  if (segments.size() == 4 && segments[3] == "cancel") {
    return only(post, "POST", {RouteName::cancel_job, Scope::submit});
  }
  return not_found(target);
}

}  // namespace

bool Routes::may_submit(std::string_view authorization) {
  const std::string_view token = bearer_token(authorization);
  if (token.empty()) return false;
  const auto caller = m_context.tokens.authenticate(token);
  return caller && caller->scopes.has(Scope::submit);
}

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
    const auto caller = m_context.tokens.authenticate(token);
    if (!caller) {
      const std::string outage = m_context.tokens.outage();
      return unauthorized(outage.empty() ? "the bearer token is not valid (unknown or revoked)"
                                         : "no bearer token is valid now: " + outage);
    }
    auto matched = match(segments, request.method, request.target);
    Reply reply;
    if (auto* refused = std::get_if<Reply>(&matched)) {
      reply = std::move(*refused);
    } else if (const Matched& found = std::get<Matched>(matched); !caller->scopes.has(found.scope)) {
      reply = forbidden(*caller, found.scope);
    } else {
      reply = route(found.route, segments, request, caller->name);
    }
    // The server counts the connection among the authenticated clients' from now on.
    reply.authenticated = true;
    return reply;
  } catch (const std::exception& e) {
    config::log_error({}, std::string("API: ") + e.what());
    return error_reply(500, "internal_error", e.what());
  }
}

Reply Routes::route(RouteName route, const std::vector<std::string>& segments, const ApiRequest& request,
                    const std::string& actor) {
  switch (route) {
    case RouteName::readyz: {
      if (m_context.readiness == nullptr) return error_reply(503, "not_ready", "this API has no readiness checks");
      Readiness* readiness = m_context.readiness;
      return deferred_reply([readiness] { return readiness->reply(); });
    }
    case RouteName::metrics: return show_metrics(m_context);
    case RouteName::pause: return set_paused(m_context, actor, true, request.body);
    case RouteName::resume: return set_paused(m_context, actor, false, request.body);
    case RouteName::events: return follow_events(m_context, request.target);
    case RouteName::resolve: return resolve_attempt(m_context, actor, segments[2], request.body);
    case RouteName::list_jobs: return list_jobs(m_context, request.target);
    case RouteName::submit_job: return submit_job(m_context, actor, request.body);
    case RouteName::show_job: return show_job(m_context, segments[2]);
    case RouteName::show_audit: return show_audit(m_context, segments[2]);
    case RouteName::show_logs: return show_logs(m_context, segments[2], request.target);
    case RouteName::cancel_job: return cancel_job(m_context, actor, segments[2], request.body);
    case RouteName::submit_sweep: return submit_sweep(m_context, actor, request.body);
    case RouteName::show_sweep: return show_sweep(m_context, segments[2]);
  }
  return error_reply(500, "internal_error", "a route without a handler");
}

}  // namespace tpslurm::api
