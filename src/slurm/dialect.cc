#include "slurm/dialect.h"

#include <algorithm>

#include <boost/algorithm/string/join.hpp>
#include <boost/url/encode.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

#include "slurm/dialect_v0038.h"
#include "slurm/dialect_v004x.h"

namespace tpslurm::slurm {
namespace {

// slurmrestd accepts only unreserved characters in a path segment: "123+1" must go as
// "123%2B1" (docs/slurm.md, *Job ids in paths*). Boost.URL writes upper-case hex digits.
std::string escape(std::string_view text) { return boost::urls::encode(text, boost::urls::unreserved_chars); }

}  // namespace

Status check_description(const model::SubmitDescription& description) {
  if (description.components.empty()) return invalid_argument("submit description: no component; a job needs at least one");
  if (description.script.empty()) return invalid_argument("submit description: the batch script is empty");
  if (description.tag.name.empty()) return invalid_argument("submit description: the job name (tag) is empty");
  if (description.environment.empty()) {
    return invalid_argument("submit description: the REST environment is empty; Slurm refuses a job without one (PATH at least)");
  }
  for (std::size_t i = 0; i < description.components.size(); ++i) {
    const auto& component = description.components[i];
    const std::string where = "submit description: components[" + std::to_string(i) + "]";
    if (component.nodes < 1) return invalid_argument(where + ".nodes " + std::to_string(component.nodes) + " must be at least 1");
    if (component.tasks_per_node < 1) {
      return invalid_argument(where + ".tasks_per_node " + std::to_string(component.tasks_per_node) + " must be at least 1");
    }
    if (component.cpus_per_task < 1) {
      return invalid_argument(where + ".cpus_per_task " + std::to_string(component.cpus_per_task) + " must be at least 1");
    }
    if (component.memory_mb < 0) return invalid_argument(where + ".memory_mb must not be negative");
  }
  if (const auto& array = description.array) {
    // slurmctld refuses a heterogeneous allocation with an array (proc_req.c
    // _slurm_rpc_allocate_het_job, 2081); no Slurm release runs a heterogeneous array.
    if (description.heterogeneous()) {
      return invalid_argument("submit description: a job array cannot be heterogeneous (Slurm has no heterogeneous arrays)");
    }
    if (array->last < array->first) return invalid_argument("submit description: array " + array->text() + " ends before it starts");
    if (array->max_running && *array->max_running == 0) return invalid_argument("submit description: array throttle %0 lets no task run");
  }
  return ok_status();
}

std::string Dialect::submit_path() const { return "/slurm/" + std::string(version()) + "/job/submit"; }

std::string Dialect::job_path(std::string_view id) const {
  return "/slurm/" + std::string(version()) + "/job/" + escape(id);
}

std::string Dialect::jobs_path(std::optional<std::int64_t> update_time) const {
  std::string path = "/slurm/" + std::string(version()) + "/jobs";
  if (update_time) path += "?update_time=" + escape(update_time_value(*update_time));
  return path;
}

std::string Dialect::conf_path() const { return "/slurm/" + std::string(version()) + "/conf"; }

std::string Dialect::kill_jobs_path() const { return "/slurm/" + std::string(version()) + "/jobs"; }

std::string Dialect::kill_jobs_body(std::span<const std::string> ids, std::string_view signal) const {
  std::string body = "{\"jobs\":[";
  for (std::size_t i = 0; i < ids.size(); ++i) body += (i == 0 ? "\"" : ",\"") + ids[i] + "\"";
  body += "]";
  if (!signal.empty()) body += ",\"signal\":\"" + std::string(signal) + "\"";
  return body + "}";
}

std::string Dialect::update_path(std::uint32_t job_id) const { return job_path(std::to_string(job_id)); }

std::string Dialect::hold_release_body() const { return R"({"hold":false})"; }

std::string Dialect::cancel_path(std::string_view id, std::string_view signal) const {
  std::string path = job_path(id);
  if (!signal.empty()) path += "?signal=" + escape(signal);
  return path;
}

std::string Dialect::ping_path() const { return "/slurm/" + std::string(version()) + "/ping"; }

std::string Dialect::partitions_path() const { return "/slurm/" + std::string(version()) + "/partitions"; }

std::string Dialect::nodes_path() const { return "/slurm/" + std::string(version()) + "/nodes"; }

std::string Dialect::associations_path(std::string_view user) const {
  return "/slurmdb/" + std::string(version()) + "/associations?user=" + escape(user);
}

std::string Dialect::diag_path() const { return "/slurm/" + std::string(version()) + "/diag"; }

std::string Dialect::jobs_state_path(std::span<const std::uint32_t> ids) const {
  std::string path = "/slurm/" + std::string(version()) + "/jobs/state";
  char separator = '?';
  for (std::uint32_t id : ids) {
    path += separator;
    path += "job_id=" + std::to_string(id);
    separator = '&';
  }
  return path;
}

std::string Dialect::jobs_state_all_path() const { return "/slurm/" + std::string(version()) + "/jobs/state"; }

std::string Dialect::db_jobs_path(std::string_view job_names, std::int64_t start_unix) const {
  return "/slurmdb/" + std::string(version()) + "/jobs?job_name=" + escape(job_names) +
         "&start_time=" + escape(query_time(start_unix));
}

std::vector<std::string_view> supported_dialects() {
  return {"v0.0.45", "v0.0.44", "v0.0.43", "v0.0.42", "v0.0.41", "v0.0.40", "v0.0.38"};
}

std::string supported_dialects_text() {
  std::string text;
  for (auto version : supported_dialects()) text += std::string(text.empty() ? "" : ", ") + std::string(version);
  return text;
}

namespace {

// "v0.0.42" -> 42; nullopt for anything else.
std::optional<int> version_number(std::string_view version) {
  constexpr std::string_view kPrefix = "v0.0.";
  if (version.size() <= kPrefix.size() || version.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  int number = 0;
  for (char digit : version.substr(kPrefix.size())) {
    if (digit < '0' || digit > '9' || number > 999) return std::nullopt;
    number = number * 10 + (digit - '0');
  }
  return number;
}

}  // namespace

std::vector<std::string> versions_in_openapi(std::string_view document) {
  constexpr std::string_view kPath = "\"/slurm/";
  std::vector<std::string> versions;
  for (std::size_t at = document.find(kPath); at != std::string_view::npos; at = document.find(kPath, at + 1)) {
    const std::size_t start = at + kPath.size();
    const std::size_t end = document.find('/', start);
    if (end == std::string_view::npos) break;
    const std::string_view version = document.substr(start, end - start);
    if (!version_number(version)) continue;
    if (std::find(versions.begin(), versions.end(), version) == versions.end()) versions.emplace_back(version);
  }
  std::sort(versions.begin(), versions.end(),
            [](const std::string& a, const std::string& b) { return *version_number(a) < *version_number(b); });
  return versions;
}

std::string advice_for_versions(const std::vector<std::string>& served) {
  const int newest_ours = *version_number(supported_dialects().front());
  const int oldest_ours = *version_number(supported_dialects().back());
  if (served.empty()) {
    return "Check that slurmrestd loads the openapi/slurmctld plugin (-s) and a data_parser plugin (-d) of one of "
           "those versions.";
  }
  const bool all_newer = std::all_of(served.begin(), served.end(),
                                     [&](const std::string& v) { return *version_number(v) > newest_ours; });
  const bool all_older = std::all_of(served.begin(), served.end(),
                                     [&](const std::string& v) { return *version_number(v) < oldest_ours; });
  if (all_newer) return "That Slurm is newer than this build: a newer tuneplane-slurm is needed.";
  if (all_older) return "Slurm before 22.05 is not supported: upgrade Slurm.";
  return "Have slurmrestd load the data_parser plugin of one of this build's versions (slurmrestd -d), or upgrade "
         "Slurm.";
}

std::string join_versions(const std::vector<std::string>& versions) { return boost::algorithm::join(versions, ", "); }

std::unique_ptr<Dialect> make_dialect(std::string_view version, std::optional<SlurmRelease> release) {
  if (version == "v0.0.38") return make_dialect_v0038();
  return make_data_parser_dialect(version, release_rules(release.value_or(oldest_release_serving(version))));
}

}  // namespace tpslurm::slurm
