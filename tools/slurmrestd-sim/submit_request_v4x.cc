// The v0.0.4x submit body: `job` or `jobs`, NO_VAL structs, per-component requeue.
#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <cctype>
#include <optional>
#include <string_view>
#include <utility>

#include "slurm_errors.h"
#include "submit_fields.h"
#include "submit_request.h"
#include "submit_values.h"

namespace tpslurm::sim::submit_detail {
namespace {

bool string_field(const json::value& v, std::string& out) {
  if (v.is_string()) {
    out = std::string(v.get_string());
    return true;
  }
  if (v.is_null()) {
    out.clear();
    return true;
  }
  return false;
}

// The JobRecord member a v0.0.4x string field sets ("script": script, ...); nullptr when
// `key` is none of them.
std::string* text_member(JobRecord& rec, const std::string& key) {
  static const std::pair<std::string_view, std::string JobRecord::*> kTextFields[] = {
      {"script", &JobRecord::script},
      {"name", &JobRecord::name},
      {"comment", &JobRecord::comment},
      {"partition", &JobRecord::partition},
      {"account", &JobRecord::account},
      {"qos", &JobRecord::qos},
      {"wckey", &JobRecord::wckey},
      {"reservation", &JobRecord::reservation},
      {"dependency", &JobRecord::dependency},
      {"constraints", &JobRecord::constraints},
      {"current_working_directory", &JobRecord::cwd},
      {"standard_output", &JobRecord::std_out},
      {"standard_error", &JobRecord::std_err},
      {"standard_input", &JobRecord::std_in},
      {"array", &JobRecord::array_spec},
  };
  for (const auto& [name, member] : kTextFields) {
    if (key == name) return &(rec.*member);
  }
  return nullptr;
}

// The read_*_field functions below each read the fields named in their comment: when `key` is
// one of them they set `rec` from `v` and return what they expected ("string", "integer", ...)
// if `v` is not that. They return nullptr when `v` was read and when `key` is not theirs.

// The string fields, the environment and tres_per_node.
const char* read_text_field(const std::string& key, const json::value& v, JobRecord& rec) {
  if (std::string* member = text_member(rec, key)) return string_field(v, *member) ? nullptr : "string";
  if (key == "environment") return parse_environment(v, rec.environment) ? nullptr : "list of strings";
  if (key == "tres_per_node") {
    std::string spec;
    if (!string_field(v, spec)) return "string";
    // slurm_get_next_tres() skips tokens that are not "gres/...": a bare "gpu:1" asks for nothing.
    if (spec.rfind("gres/", 0) == 0) {
      rec.tres_per_node = spec;
      rec.gpus = gpu_count(spec);
    }
  }
  return nullptr;
}

// requeue and hold.
const char* read_flag_field(const std::string& key, const json::value& v, JobRecord& rec) {
  if (key == "requeue") {
    if (!v.is_bool()) return "boolean";
    rec.requeue = v.get_bool();
  } else if (key == "hold") {
    if (!v.is_bool()) return "boolean";
    rec.hold = v.get_bool();
  }
  return nullptr;
}

// cpus_per_task, tasks, nodes, minimum_nodes and maximum_nodes.
const char* read_count_field(const std::string& key, const json::value& v, JobRecord& rec) {
  if (key == "cpus_per_task") {
    auto n = as_no_val(v);
    if (!n) return "integer";
    rec.cpus_per_task = *n > 0 ? static_cast<std::uint32_t>(*n) : 0;
  } else if (key == "tasks") {
    auto n = as_no_val(v);
    if (!n) return "integer";
    rec.tasks = *n > 0 ? static_cast<std::uint32_t>(*n) : 0;
  } else if (key == "nodes") {
    auto n = parse_nodes(v);
    if (!n) return "node count";
    rec.min_nodes = *n;
    rec.nodes_requested = true;
  } else if (key == "minimum_nodes") {
    auto n = as_no_val(v);
    if (!n) return "integer";
    if (*n > 0) rec.min_nodes = static_cast<std::uint32_t>(*n);
  } else if (key == "maximum_nodes") {
    if (!as_no_val(v)) return "integer";
    rec.nodes_requested = true;
  }
  return nullptr;
}

// memory_per_node, memory_per_cpu and time_limit.
const char* read_limit_field(const std::string& key, const json::value& v, JobRecord& rec) {
  if (key == "memory_per_node") {
    auto mb = parse_memory(v);
    if (!mb) return "memory size";
    rec.mem_per_node_mb = *mb;
  } else if (key == "memory_per_cpu") {
    auto mb = parse_memory(v);
    if (!mb) return "memory size";
    rec.mem_per_cpu_mb = *mb;
  } else if (key == "time_limit") {
    std::int64_t limit = parse_time_limit(v);
    if (limit < 0) return "time limit";
    if (limit == 0) {
      rec.time_limit_min.reset();
    } else {
      rec.time_limit_min = static_cast<std::uint32_t>(limit);
    }
  }
  return nullptr;
}

// One known field of a v0.0.4x component; what it expected when `v` is not that, else nullptr.
// Every other known field is accepted and has no effect on the simulated job.
const char* read_field_v4x(const std::string& key, const json::value& v, JobRecord& rec) {
  for (auto* read : {read_text_field, read_flag_field, read_count_field, read_limit_field}) {
    if (const char* expected = read(key, v, rec)) return expected;
  }
  return nullptr;
}

bool parse_component_v4x(const json::object& obj, Dialect dialect, const std::string& path, JobRecord& rec,
                         Diagnostics& diag) {
  for (const auto& kv : obj) {
    const std::string key(kv.key());
    const json::value& v = kv.value();
    if (!is_known_field_v4x(dialect, key)) {
      diag.warn("Ignoring unknown field \"" + key + "\" of type " + type_name(v) + " in " + path, "_parse_job_desc");
      continue;
    }
    if (const char* expected = read_field_v4x(key, v, rec)) {
      diag.error(err::kRestFailParsing,
                 "Rejecting request. Failed to parse " + path + "/" + key + ": expected " + expected + " but got " +
                     type_name(v),
                 "_parse_job_desc");
      return false;
    }
  }
  return true;
}
}  // namespace

SubmitParse parse_v4x(const json::value& root, Dialect dialect, const SubmitDefaults& defaults) {
  SubmitParse out;
  auto refuse = [&](int rc, std::string description, std::string source) {
    out.diag.error(rc, std::move(description), std::move(source));
    out.rc = rc;
    out.components.clear();
    return out;
  };
  if (!root.is_object()) {
    return refuse(err::kRestInvalidQuery, "Rejecting request. Failure parsing parameters", "_job_post");
  }
  const json::object& obj = root.get_object();
  if (const json::value* script = obj.if_contains("script")) {
    out.top_level_script = script->is_string() && !script->get_string().empty();
  }
  for (const auto& kv : obj) {
    if (kv.key() != "script" && kv.key() != "job" && kv.key() != "jobs") {
      out.diag.warn(
          "Ignoring unknown field \"" + std::string(kv.key()) + "\" of type " + type_name(kv.value()) + " in #",
          "_job_post");
    }
  }
  const json::value* job = obj.if_contains("job");
  const json::value* jobs = obj.if_contains("jobs");
  if (job && jobs) {
    return refuse(err::kRestInvalidQuery, "Specify only one \"job\" or \"jobs\" fields but never both", "_job_post");
  }
  if (!job && !jobs) {
    return refuse(err::kRestInvalidQuery, "Specifying either \"job\" or \"jobs\" fields are required to submit job",
                  "_job_post");
  }
  std::vector<std::pair<const json::object*, std::string>> parts;
  if (job) {
    if (!job->is_object()) {
      return refuse(err::kRestFailParsing,
                    "Rejecting request. Failed to parse #/job: expected object but got " + type_name(*job),
                    "_job_post");
    }
    parts.emplace_back(&job->get_object(), "#/job");
  } else {
    if (!jobs->is_array()) {
      return refuse(err::kRestFailParsing,
                    "Rejecting request. Failed to parse #/jobs: expected list but got " + type_name(*jobs),
                    "_job_post");
    }
    const json::array& list = jobs->get_array();
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (!list[i].is_object()) {
        return refuse(err::kRestFailParsing,
                      "Rejecting request. Failed to parse #/jobs/" + std::to_string(i) + ": expected object but got " +
                          type_name(list[i]),
                      "_job_post");
      }
      parts.emplace_back(&list[i].get_object(), "#/jobs/" + std::to_string(i));
    }
    if (parts.empty()) {
      return refuse(err::kRestInvalidQuery, "Specifying either \"job\" or \"jobs\" fields are required to submit job",
                    "_job_post");
    }
  }
  for (const auto& [part, path] : parts) {
    JobRecord rec = new_record(dialect, defaults);
    if (!parse_component_v4x(*part, dialect, path, rec, out.diag)) {
      out.rc = err::kRestFailParsing;
      out.components.clear();
      return out;
    }
    if (rec.cwd.empty()) rec.cwd = defaults.default_cwd;
    out.components.push_back(std::move(rec));
  }
  // A top-level script overwrites the first component's.
  if (const json::value* script = obj.if_contains("script")) {
    if (!script->is_string()) {
      return refuse(err::kRestFailParsing,
                    "Rejecting request. Failed to parse #/script: expected string but got " + type_name(*script),
                    "_job_post");
    }
    out.components.front().script = std::string(script->get_string());
  }
  if (out.components.front().script.empty()) {
    if (out.components.size() > 1) {
      return refuse(err::kRestInvalidQuery,
                    "Refusing HetJob submission without batch script or empty batch script for first component",
                    "_job_post");
    }
    return refuse(err::kRestInvalidQuery, "Populated \"script\" field is required for job submission", "_job_post");
  }
  return out;
}

}  // namespace tpslurm::sim::submit_detail
