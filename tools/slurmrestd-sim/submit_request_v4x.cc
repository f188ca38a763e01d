// The v0.0.4x submit body: `job` or `jobs`, NO_VAL structs, per-component requeue.
#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <cctype>
#include <optional>

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

bool parse_component_v4x(const json::object& obj, Dialect dialect, const std::string& path, JobRecord& rec,
                         Diagnostics& diag) {
  auto fail = [&](const std::string& key, const json::value& v, const std::string& expected) {
    diag.error(err::kRestFailParsing,
               "Rejecting request. Failed to parse " + path + "/" + key + ": expected " + expected + " but got " +
                   type_name(v),
               "_parse_job_desc");
    return false;
  };
  for (const auto& kv : obj) {
    const std::string key(kv.key());
    const json::value& v = kv.value();
    if (!is_known_field_v4x(dialect, key)) {
      diag.warn("Ignoring unknown field \"" + key + "\" of type " + type_name(v) + " in " + path, "_parse_job_desc");
      continue;
    }
    if (key == "script") {
      if (!string_field(v, rec.script)) return fail(key, v, "string");
    } else if (key == "name") {
      if (!string_field(v, rec.name)) return fail(key, v, "string");
    } else if (key == "comment") {
      if (!string_field(v, rec.comment)) return fail(key, v, "string");
    } else if (key == "partition") {
      if (!string_field(v, rec.partition)) return fail(key, v, "string");
    } else if (key == "account") {
      if (!string_field(v, rec.account)) return fail(key, v, "string");
    } else if (key == "qos") {
      if (!string_field(v, rec.qos)) return fail(key, v, "string");
    } else if (key == "wckey") {
      if (!string_field(v, rec.wckey)) return fail(key, v, "string");
    } else if (key == "reservation") {
      if (!string_field(v, rec.reservation)) return fail(key, v, "string");
    } else if (key == "dependency") {
      if (!string_field(v, rec.dependency)) return fail(key, v, "string");
    } else if (key == "constraints") {
      if (!string_field(v, rec.constraints)) return fail(key, v, "string");
    } else if (key == "current_working_directory") {
      if (!string_field(v, rec.cwd)) return fail(key, v, "string");
    } else if (key == "standard_output") {
      if (!string_field(v, rec.std_out)) return fail(key, v, "string");
    } else if (key == "standard_error") {
      if (!string_field(v, rec.std_err)) return fail(key, v, "string");
    } else if (key == "standard_input") {
      if (!string_field(v, rec.std_in)) return fail(key, v, "string");
    } else if (key == "environment") {
      if (!parse_environment(v, rec.environment)) return fail(key, v, "list of strings");
    } else if (key == "requeue") {
      if (!v.is_bool()) return fail(key, v, "boolean");
      rec.requeue = v.get_bool();
    } else if (key == "hold") {
      if (!v.is_bool()) return fail(key, v, "boolean");
      rec.hold = v.get_bool();
    } else if (key == "tres_per_node") {
      std::string spec;
      if (!string_field(v, spec)) return fail(key, v, "string");
      // slurm_get_next_tres() skips tokens that are not "gres/...": a bare "gpu:1" asks for nothing.
      if (spec.rfind("gres/", 0) == 0) {
        rec.tres_per_node = spec;
        rec.gpus = gpu_count(spec);
      }
    } else if (key == "cpus_per_task") {
      auto n = as_no_val(v);
      if (!n) return fail(key, v, "integer");
      rec.cpus_per_task = *n > 0 ? static_cast<std::uint32_t>(*n) : 0;
    } else if (key == "tasks") {
      auto n = as_no_val(v);
      if (!n) return fail(key, v, "integer");
      rec.tasks = *n > 0 ? static_cast<std::uint32_t>(*n) : 0;
    } else if (key == "nodes") {
      auto n = parse_nodes(v);
      if (!n) return fail(key, v, "node count");
      rec.min_nodes = *n;
      rec.nodes_requested = true;
    } else if (key == "minimum_nodes") {
      auto n = as_no_val(v);
      if (!n) return fail(key, v, "integer");
      if (*n > 0) rec.min_nodes = static_cast<std::uint32_t>(*n);
    } else if (key == "maximum_nodes") {
      if (!as_no_val(v)) return fail(key, v, "integer");
      rec.nodes_requested = true;
    } else if (key == "memory_per_node") {
      auto mb = parse_memory(v);
      if (!mb) return fail(key, v, "memory size");
      rec.mem_per_node_mb = *mb;
    } else if (key == "memory_per_cpu") {
      auto mb = parse_memory(v);
      if (!mb) return fail(key, v, "memory size");
      rec.mem_per_cpu_mb = *mb;
    } else if (key == "time_limit") {
      std::int64_t limit = parse_time_limit(v);
      if (limit < 0) return fail(key, v, "time limit");
      if (limit == 0) {
        rec.time_limit_min.reset();
      } else {
        rec.time_limit_min = static_cast<std::uint32_t>(limit);
      }
    }
    // Every other known field is accepted and has no effect on the simulated job.
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
