// The v0.0.38 (22.05) submit body: sbatch option names, a top-level script, unknown keys refused.
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

// slurm_process_option_data() failing on a value: the option's own message, then the
// handler's "Unable to process key".
void v38_value_error(Diagnostics& diag, const std::string& key, std::string message, int code) {
  diag.errors.push_back({code, "", "", ErrorItem::Form::error_first, std::move(message)});
  diag.errors.push_back({err::kUnspecified,
                         "Unable to process key \"" + key + "\"",
                         "slurm_process_option_data",
                         ErrorItem::Form::full,
                         {}});
}

bool v38_string(const json::value& v, std::string& out) {
  if (v.is_string()) {
    out = std::string(v.get_string());
    return true;
  }
  if (v.is_int64() || v.is_uint64() || v.is_double() || v.is_bool()) {
    out = json::serialize(v);
    return true;
  }
  return false;
}

// A v0.0.38 key whose value is one string copied into the job.
struct V38StringField {
  const char* key;
  const char* alias;  // "" when none
  std::string JobRecord::*member;
  const char* message;  // the error for a value that is not a string
};

const V38StringField kV38StringFields[] = {
    {"name", "job_name", &JobRecord::name, "Invalid job name"},
    {"comment", "", &JobRecord::comment, "Invalid comment"},
    {"partition", "", &JobRecord::partition, "Invalid partition"},
    {"account", "", &JobRecord::account, "Invalid account"},
    {"qos", "", &JobRecord::qos, "Invalid qos"},
    {"wckey", "", &JobRecord::wckey, "Invalid wckey"},
    {"reservation", "", &JobRecord::reservation, "Invalid reservation"},
    {"dependency", "", &JobRecord::dependency, "Invalid dependency"},
    {"constraints", "constraint", &JobRecord::constraints, "Invalid constraint"},
    {"current_working_directory", "cwd", &JobRecord::cwd, "Invalid working directory"},
    {"standard_output", "", &JobRecord::std_out, "Invalid standard output"},
    {"standard_error", "", &JobRecord::std_err, "Invalid standard error"},
    {"standard_input", "", &JobRecord::std_in, "Invalid standard input"},
    {"array", "", &JobRecord::array_spec, "Invalid job array specification"},
};

const V38StringField* v38_string_field(const std::string& key) {
  for (const auto& field : kV38StringFields) {
    if (key == field.key || (*field.alias != '\0' && key == field.alias)) return &field;
  }
  return nullptr;
}

// Applies one known v0.0.38 key that is not a plain string field; false (with the error in
// `diag`) if its value is refused.
bool apply_v38_value(const std::string& key, const json::value& v, JobRecord& rec, Diagnostics& diag, bool& have_env) {
  auto bad = [&](const std::string& message) {
    v38_value_error(diag, key, message, err::kUnspecified);
    return false;
  };
  if (key == "environment") {
    if (!v.is_object()) return bad("environment must be a dictionary");
    if (!parse_environment(v, rec.environment)) return bad("environment values must be strings");
    have_env = !rec.environment.empty();
  } else if (key == "requeue") {
    // arg_set_data_requeue()@22.05 ignores the value: any "requeue" enables requeue.
    rec.requeue = true;
  } else if (key == "no_requeue") {
    rec.requeue = false;
  } else if (key == "hold") {
    if (!v.is_bool()) return bad("Invalid hold");
    rec.hold = v.get_bool();
  } else if (key == "gres") {
    std::string spec;
    if (!v38_string(v, spec)) return bad("Invalid gres");
    rec.tres_per_node = spec.rfind("gres:", 0) == 0 ? spec : "gres:" + spec;
    rec.gpus = gpu_count(spec);
  } else if (key == "cpus_per_task") {
    auto n = as_int(v);
    if (!n || *n < 1) return bad("Invalid cpus_per_task");
    rec.cpus_per_task = static_cast<std::uint32_t>(*n);
  } else if (key == "tasks" || key == "ntasks") {
    auto n = as_int(v);
    if (!n || *n < 1) return bad("Invalid tasks");
    rec.tasks = static_cast<std::uint32_t>(*n);
  } else if (key == "nodes") {
    auto n = parse_nodes(v);
    if (!n) return bad("Invalid node count specification");
    rec.min_nodes = *n;
    rec.nodes_requested = true;
  } else if (key == "memory_per_node") {
    auto mb = v.is_string() ? parse_memory_text(v.get_string()) : parse_memory(v);
    if (!mb) return bad("Invalid memory_per_node");
    rec.mem_per_node_mb = *mb;
  } else if (key == "memory_per_cpu") {
    auto mb = v.is_string() ? parse_memory_text(v.get_string()) : parse_memory(v);
    if (!mb) return bad("Invalid memory_per_cpu");
    rec.mem_per_cpu_mb = *mb;
  } else if (key == "time_limit") {
    std::optional<std::int64_t> minutes = v.is_string() ? parse_time_text(v.get_string()) : as_int(v);
    if (!minutes) return bad("Invalid time limit specification");
    if (*minutes <= 0) {
      rec.time_limit_min.reset();
    } else {
      rec.time_limit_min = static_cast<std::uint32_t>(*minutes);
    }
  } else if (key == "begin_time") {
    // 22.05 reads begin_time only as a time string; an integer is refused.
    if (!v.is_string()) {
      v38_value_error(diag, key, "Unable to parse time", err::kInvalidTimeValue);
      return false;
    }
  }
  // Every other known key is accepted and has no effect on the simulated job.
  return true;
}

bool parse_component_v38(const json::object& obj, JobRecord& rec, Diagnostics& diag) {
  bool have_env = false;
  for (const auto& kv : obj) {
    const std::string key = lower(kv.key());
    const json::value& v = kv.value();
    switch (classify_key_v38(key)) {
      case V38Key::unknown:
        diag.errors.push_back({0, "Unknown key \"" + key + "\"", "hsearch_r", ErrorItem::Form::no_number, {}});
        return false;
      case V38Key::disabled:
        diag.errors.push_back(
            {0, "Disabled key: \"" + key + "\"", "openapi specification", ErrorItem::Form::no_number, {}});
        return false;
      case V38Key::known: break;
    }
    if (const V38StringField* field = v38_string_field(key)) {
      if (!v38_string(v, rec.*field->member)) {
        v38_value_error(diag, key, field->message, err::kUnspecified);
        return false;
      }
    } else if (!apply_v38_value(key, v, rec, diag, have_env)) {
      return false;
    }
  }
  if (!have_env) {
    // Checked by slurmrestd itself before bothering the controller.
    diag.errors.push_back({err::kEnvironmentMissing, "", "", ErrorItem::Form::error_first, "environment must be set"});
    return false;
  }
  return true;
}
}  // namespace

SubmitParse parse_v38(const json::value& root, const SubmitDefaults& defaults) {
  SubmitParse out;
  auto finish = [&](int rc) {
    out.rc = rc;
    out.components.clear();
    out.diag.errors.push_back({rc, "", "", ErrorItem::Form::code_first, {}});
    return out;
  };
  if (!root.is_object()) return finish(err::kRestInvalidQuery);
  const json::object& obj = root.get_object();
  const json::value* script = obj.if_contains("script");
  if (!script || !script->is_string()) return finish(err::kJobScriptMissing);
  const json::value* jobs = obj.if_contains("job");
  if (!jobs) jobs = obj.if_contains("jobs");
  if (!jobs) return finish(err::kRestInvalidJobsDesc);
  if (jobs->is_object()) {
    JobRecord rec = new_record(Dialect::v0038, defaults);
    if (!parse_component_v38(jobs->get_object(), rec, out.diag)) return finish(err::kRestFailParsing);
    out.components.push_back(std::move(rec));
  } else if (jobs->is_array()) {
    std::size_t i = 0;
    for (const auto& item : jobs->get_array()) {
      JobRecord rec = new_record(Dialect::v0038, defaults);
      if (!item.is_object() || !parse_component_v38(item.get_object(), rec, out.diag)) {
        out.diag.error(err::kRestFailParsing, "unexpected failure parsing het job: " + std::to_string(i),
                       "_parse_job_desc");
        return finish(err::kRestFailParsing);
      }
      out.components.push_back(std::move(rec));
      ++i;
    }
    if (out.components.empty()) return finish(err::kRestInvalidJobsDesc);
  } else {
    return finish(err::kRestInvalidJobsDesc);
  }
  for (auto& rec : out.components) {
    // Without a working directory a 22.05 job inherits slurmrestd's.
    if (rec.cwd.empty()) rec.cwd = defaults.default_cwd;
  }
  out.components.front().script = std::string(script->get_string());
  return out;
}

}  // namespace tpslurm::sim::submit_detail
