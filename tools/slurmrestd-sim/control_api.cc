#include "control_api.h"

#include <boost/json/parse.hpp>

#include <string_view>

#include "control_body.h"
#include "control_routes.h"

namespace tpslurm::sim {

namespace json = boost::json;

namespace {

using namespace control;

struct Route {
  std::string_view method;
  std::string_view path;  // below /sim/; "{id}" matches a segment of digits, "{task}" one "M_T"
  Handler handler;
};

// Every control endpoint; tools/slurmrestd-sim/README.md documents them.
constexpr Route kRoutes[] = {
    {"GET", "health", health},
    {"GET", "clock", clock_get},
    {"POST", "clock/advance", clock_advance},
    {"POST", "clock/set", clock_set},
    {"GET", "timing", timing_get},
    {"POST", "timing", timing_set},
    {"GET", "jobs/{id}", job_get},
    {"POST", "jobs/{id}/state", job_state},
    {"POST", "jobs/{task}/state", job_task_state},
    {"POST", "jobs/{id}/requeue", job_requeue},
    {"POST", "jobs/bulk", jobs_bulk},
    {"POST", "jobs/advance", jobs_advance},
    {"POST", "ids/reset", ids_reset},
    {"GET", "archive", archive},
    {"GET", "faults", faults_get},
    {"DELETE", "faults", faults_clear},
    {"DELETE", "faults/{id}", fault_remove},
    {"POST", "faults", fault_add},
    {"POST", "faults/random", faults_random_set},
    {"DELETE", "faults/random", faults_random_clear},
    {"GET", "stats", stats_get},
    {"POST", "stats/reset", stats_reset},
};

// Whether `path` names exactly segments[1..] (segments[0] is "sim").
bool matches(std::string_view path, const std::vector<std::string>& segments) {
  std::size_t i = 1;
  while (!path.empty()) {
    const std::size_t slash = path.find('/');
    const std::string_view part = path.substr(0, slash);
    if (i >= segments.size()) return false;
    if (part == "{task}") {
      const std::size_t underscore = segments[i].find('_');
      if (underscore == std::string::npos || !digits(segments[i].substr(0, underscore)) ||
          !digits(segments[i].substr(underscore + 1))) {
        return false;
      }
    } else if (part == "{id}" ? !digits(segments[i]) : segments[i] != part) {
      return false;
    }
    ++i;
    path = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
  }
  return i == segments.size();
}

}  // namespace

HttpReply ControlApi::handle(const HttpRequest& request, const Target& target) {
  json::object body;
  if (!request.body.empty()) {
    boost::system::error_code ec;
    json::value parsed = json::parse(request.body, ec);
    if (ec || !parsed.is_object()) return fail(400, "request body must be a JSON object");
    body = parsed.get_object();
  }
  m_sim.store.tick();
  const ControlCall call{m_sim, request, target, body};
  for (const Route& route : kRoutes) {
    if (route.method == request.method && matches(route.path, target.segments)) return route.handler(call);
  }
  const auto& seg = target.segments;
  if (seg.size() >= 3 && seg[1] == "jobs" && digits(seg[2])) return job_unknown_endpoint(call);
  return fail(404, "unknown control endpoint " + request.method + " " + target.path +
                       " (see tools/slurmrestd-sim/README.md)");
}

}  // namespace tpslurm::sim
