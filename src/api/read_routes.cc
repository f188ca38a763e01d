// The routes that only read: the job list, one job, its audit timeline, its logs.
#include <boost/url/parse.hpp>
#include <charconv>
#include <limits>

#include "api/job_routes.h"
#include "operations/job_logs.h"
#include "operations/job_views.h"

namespace tpslurm::api {
namespace {

constexpr std::int64_t kMaxPage = 1000;

// A decimal integer from `min` to `max`, or nothing.
std::optional<std::int64_t> integer_in(std::string_view text, std::int64_t min, std::int64_t max) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max) return std::nullopt;
  return value;
}

}  // namespace

Reply list_jobs(RouteContext& context, std::string_view target) {
  auto url = boost::urls::parse_origin_form(target);
  if (!url) return error_reply(400, "malformed_request", "the request target does not parse");
  operations::JobPageQuery query;
  model::Problems problems;
  for (const auto& param : url->params()) {
    const std::string shown = model::quote_value(param.value);
    if (param.key == "phase") {
      query.phase = model::parse_job_phase(param.value);
      if (!query.phase) problems.add("phase", shown, "expected a platform phase, e.g. queued, running or failed");
    } else if (param.key == "limit") {
      if (auto limit = integer_in(param.value, 1, kMaxPage)) {
        query.limit = static_cast<std::size_t>(*limit);
      } else {
        problems.add("limit", shown, "expected a number of jobs from 1 to 1000");
      }
    } else if (param.key == "after") {
      query.after = param.value;
    } else {
      problems.add(param.key, shown, "unknown parameter; known: phase, limit, after");
    }
  }
  if (!problems.empty()) return error_reply(422, "invalid_request", "the query has invalid parameters", problems);
  auto page = operations::job_page(context.journal, query);
  if (!page.ok()) return error_from(page.error());
  return json_reply(200, *page);
}

Reply show_job(RouteContext& context, std::string_view job_id) {
  auto view = operations::job_status(context.journal, job_id);
  if (!view.ok()) return error_from(view.error());
  if (!view->has_value()) return no_job(job_id);
  return json_reply(200, **view);
}

Reply show_audit(RouteContext& context, std::string_view job_id) {
  auto view = operations::job_timeline(context.journal, job_id);
  if (!view.ok()) return error_from(view.error());
  if (!view->has_value()) return no_job(job_id);
  return json_reply(200, **view);
}

Reply show_logs(RouteContext& context, std::string_view job_id, std::string_view target) {
  auto url = boost::urls::parse_origin_form(target);
  if (!url) return error_reply(400, "malformed_request", "the request target does not parse");
  operations::LogsQuery query{std::string(job_id), std::nullopt, std::nullopt, storage::LogStream::out, std::nullopt};
  model::Problems problems;
  for (const auto& param : url->params()) {
    const std::string shown = model::quote_value(param.value);
    if (param.key == "attempt") {
      if (auto n = integer_in(param.value, 1, 1'000'000)) query.attempt = static_cast<int>(*n);
      if (!query.attempt) problems.add("attempt", shown, "expected an attempt number (1 or more)");
    } else if (param.key == "component") {
      if (auto n = integer_in(param.value, -1, 1'000'000)) query.component = static_cast<int>(*n);
      if (!query.component)
        problems.add("component", shown, "expected a component number, or -1 for the job's own log");
    } else if (param.key == "stream") {
      if (param.value == "stderr") {
        query.stream = storage::LogStream::err;
      } else if (param.value != "stdout") {
        problems.add("stream", shown, "expected stdout or stderr");
      }
    } else if (param.key == "offset") {
      if (auto n = integer_in(param.value, 0, std::numeric_limits<std::int64_t>::max())) {
        query.offset = static_cast<std::uint64_t>(*n);
      } else {
        problems.add("offset", shown, "expected a byte offset (0 or more)");
      }
    } else {
      problems.add(param.key, shown, "unknown parameter; known: attempt, component, stream, offset");
    }
  }
  if (!problems.empty()) return error_reply(422, "invalid_request", "the query has invalid parameters", problems);
  auto logs = operations::read_job_logs(context.journal, context.settings.storage_root, query);
  if (!logs.ok()) {
    if (logs.error().kind() == ErrorKind::invalid_argument && query.component) {
      model::Problems component;
      component.add("component", std::to_string(*query.component), logs.error().message());
      return error_reply(422, "invalid_request", logs.error().message(), component);
    }
    return error_from(logs.error());
  }
  return json_reply(200, operations::logs_json(query, *logs));
}

}  // namespace tpslurm::api
