#include "model/sweep_request.h"

#include <boost/json/serialize.hpp>
#include <map>
#include <set>

#include "model/detail/canonical_json.h"
#include "model/detail/json_fields.h"
#include "model/detail/json_input.h"

namespace tpslurm::model {
namespace json = boost::json;
using detail::Fields;
using detail::Need;

namespace {

constexpr detail::JsonLimits kSweepLimits{SweepLimits::max_body_bytes, RequestLimits::max_depth,
                                          RequestLimits::max_string_bytes};

bool starts_with_path(std::string_view path, std::string_view prefix) {
  if (path.substr(0, prefix.size()) != prefix) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '.' || path[prefix.size()] == '[';
}

// The base's own rules: what only runs may say, and one pool.
void check_base(const json::object& base, Problems& problems) {
  if (base.contains("job_id")) {
    problems.add("base.job_id", detail::show(base.at("job_id")),
                 "a sweep's base takes no job_id; each run names its own in runs[i].job_id");
  }
  if (base.contains("credentials")) {
    problems.add("base.credentials", "a sweep's base takes no credentials; each run has its own in runs[i].credentials");
  }
  const json::value* spec = base.if_contains("spec");
  if (spec == nullptr || !spec->is_object()) return;
  if (spec->get_object().contains("command")) {
    problems.add("base.spec.command", "a sweep's base takes no command; each run names its own in runs[i].command");
  }
  const json::value* pools = spec->get_object().if_contains("pools");
  if (pools != nullptr && pools->is_array() && pools->get_array().size() > 1) {
    problems.add("base.spec.pools", "has " + std::to_string(pools->get_array().size()) + " pools",
                 "Slurm has no heterogeneous job arrays: a sweep has one pool");
  }
}

// Run i of the sweep: the base with the run's fields put in. Problems of the run's own shape
// (another field, an env that is not an object) are reported here.
json::object run_request(const json::object& base, const json::object& run, const std::string& path,
                         Problems& problems) {
  json::object out = base;
  out.erase("job_id");
  out.erase("credentials");
  // Before `spec` is pointed at: an insertion may move the object's members.
  for (const char* key : {"job_id", "credentials"}) {
    if (const json::value* value = run.if_contains(key)) out[key] = *value;
  }
  // A base without a spec object is the base's own problem, reported once; the run's command
  // and env then have nowhere to go.
  json::value* spec_value = out.if_contains("spec");
  json::object* spec = spec_value != nullptr && spec_value->is_object() ? &spec_value->get_object() : nullptr;
  if (spec != nullptr) spec->erase("command");
  for (const auto& [key, value] : run) {
    if (key == "job_id" || key == "credentials") {
      continue;
    } else if (key == "command") {
      if (spec != nullptr) (*spec)["command"] = value;
    } else if (key == "env") {
      if (!value.is_object()) {
        problems.add(path + ".env", detail::show(value), "must be an object");
        continue;
      }
      if (spec == nullptr) continue;
      if (!spec->contains("env")) (*spec)["env"] = json::object{};
      json::value& env = (*spec)["env"];
      if (!env.is_object()) continue;  // the base's env is not an object: reported once, as the base's
      for (const auto& [name, setting] : value.get_object()) env.get_object()[name] = setting;
    } else {
      problems.add(detail::child_path(path, std::string_view(key.data(), key.size())),
                   "a run may set only job_id, credentials, command and env; put the rest in base");
    }
  }
  return out;
}

// A problem of run i's LaunchRequest, put where the user wrote the value: the run's fields under
// runs[i], the base's under base (once for the whole sweep).
class ProblemSorter {
 public:
  explicit ProblemSorter(Problems& problems) : m_problems(problems) {}

  void add(const Problem& problem, const json::object& run, const std::string& run_path) {
    const std::string_view path = problem.path;
    if (path.empty() || starts_with_path(path, "job_id") || starts_with_path(path, "credentials")) {
      m_problems.add(path.empty() ? run_path : run_path + "." + problem.path, problem.value, problem.message);
    } else if (starts_with_path(path, "spec.command") || is_run_env(path, run)) {
      m_problems.add(run_path + "." + problem.path.substr(5), problem.value, problem.message);
    } else {
      Problem base{"base." + problem.path, problem.value, problem.message};
      if (m_base_seen.insert(base.to_string()).second) m_problems.add(base.path, base.value, base.message);
    }
  }

 private:
  // spec.env's count, or a variable the run sets.
  static bool is_run_env(std::string_view path, const json::object& run) {
    const json::value* env = run.if_contains("env");
    if (env == nullptr || !env->is_object()) return false;
    if (path == "spec.env") return true;
    for (const auto& entry : env->get_object()) {
      if (starts_with_path(path, detail::child_path("spec.env", std::string_view(entry.key().data(), entry.key().size())))) {
        return true;
      }
    }
    return false;
  }

  Problems& m_problems;
  std::set<std::string> m_base_seen;
};

// Every run's job_id, as written, once in the sweep: a run whose own request has other
// problems still takes its id.
void check_unique_ids(const json::array& runs, Problems& problems) {
  std::map<std::string_view, std::size_t> first;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const json::value* id = runs[i].is_object() ? runs[i].get_object().if_contains("job_id") : nullptr;
    if (id == nullptr || !id->is_string()) continue;
    const std::string_view text(id->get_string().data(), id->get_string().size());
    auto [where, inserted] = first.emplace(text, i);
    if (inserted) continue;
    problems.add(detail::index_path("runs", i) + ".job_id", quote_value(text),
                 "is the job_id of runs[" + std::to_string(where->second) +
                     "] too; each run is a job of its own and needs an id of its own");
  }
}

class SweepParser {
 public:
  SweepParser(const ValidationContext& context, Problems& problems) : m_context(context), m_problems(problems) {}

  void parse(const json::object& root, SweepRequest& out) {
    Fields top(root, "", m_problems);
    if (auto id = top.string("sweep_id", Need::required)) {
      if (!is_valid_job_id(*id)) {
        m_problems.add("sweep_id", quote_value(*id),
                       "must match [a-z0-9][a-z0-9-]{0,62} (lower-case letters, digits and '-', at most 63)");
      }
      out.sweep_id = std::move(*id);
    }
    const json::object* base = top.object("base", Need::required);
    const json::array* runs = top.array("runs", Need::required);
    auto max_running = top.integer("max_running", Need::optional, 1, SweepLimits::max_runs);
    top.reject_unknown();
    if (base != nullptr) check_base(*base, m_problems);
    if (runs == nullptr) return;
    if (runs->empty()) {
      m_problems.add("runs", "[]", "a sweep needs at least one run");
      return;
    }
    if (runs->size() > SweepLimits::max_runs) {
      m_problems.add("runs", "has " + std::to_string(runs->size()) + " runs; the limit is " +
                                 std::to_string(SweepLimits::max_runs) + "; split the sweep in several");
      return;
    }
    if (max_running) {
      if (static_cast<std::size_t>(*max_running) > runs->size()) {
        m_problems.add("max_running", std::to_string(*max_running),
                       "is more than the sweep's " + std::to_string(runs->size()) +
                           " runs; give at most that many, or leave it out for no limit");
      }
      out.max_running = static_cast<int>(*max_running);
    }
    if (base != nullptr) parse_runs(*base, *runs, out);
  }

 private:
  void parse_runs(const json::object& base, const json::array& runs, SweepRequest& out) {
    ProblemSorter sorter(m_problems);
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const std::string path = detail::index_path("runs", i);
      if (!runs[i].is_object()) {
        m_problems.add(path, detail::show(runs[i]), "must be an object");
        continue;
      }
      const json::object& run = runs[i].get_object();
      const std::string text = json::serialize(run_request(base, run, path, m_problems));
      auto request = parse_launch_request(text, m_context);
      if (!request.ok()) {
        for (const Problem& problem : request.error().list()) sorter.add(problem, run, path);
        continue;
      }
      out.runs.push_back(std::move(*request));
    }
    check_unique_ids(runs, m_problems);
  }

  const ValidationContext& m_context;
  Problems& m_problems;
};

// The sweep's canonical text: every run without its credentials.
std::string canonical_sweep(json::object sweep) {
  for (json::value& run : sweep["runs"].get_array()) run.get_object().erase("credentials");
  return detail::canonical_json(sweep);
}

}  // namespace

Result<SweepRequest, Problems> parse_sweep_request(std::string_view text, const ValidationContext& context) {
  auto parsed = detail::parse_untrusted_json(text, kSweepLimits, "the sweep");
  if (!parsed.ok()) return parsed.error();
  Problems problems;
  if (!parsed->is_object()) {
    problems.add("", "the sweep must be a JSON object");
    return problems;
  }
  SweepRequest sweep;
  SweepParser(context, problems).parse(parsed->get_object(), sweep);
  if (!problems.empty()) return problems;
  sweep.canonical_json = canonical_sweep(std::move(parsed->get_object()));
  return sweep;
}

}  // namespace tpslurm::model
