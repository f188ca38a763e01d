#include "submit_request.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <cctype>
#include <optional>

#include "slurm_errors.h"
#include "submit_fields.h"

namespace tpslurm::sim {

namespace json = boost::json;

namespace {

std::string type_name(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null: return "null";
    case json::kind::bool_: return "boolean";
    case json::kind::int64:
    case json::kind::uint64: return "integer";
    case json::kind::double_: return "number";
    case json::kind::string: return "string";
    case json::kind::array: return "array";
    case json::kind::object: return "object";
  }
  return "unknown";
}

std::optional<std::int64_t> as_int(const json::value& v) {
  if (v.is_int64()) return v.get_int64();
  if (v.is_uint64()) return static_cast<std::int64_t>(v.get_uint64());
  if (v.is_double()) return static_cast<std::int64_t>(v.get_double());
  if (v.is_string()) {
    const json::string& s = v.get_string();
    if (s.empty() || s.size() > 18) return std::nullopt;
    for (char c : s) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    }
    return std::stoll(std::string(s));
  }
  return std::nullopt;
}

// A NO_VAL number: plain, numeric string or {"set","infinite","number"}.
// nullopt = unparsable; value -1 = unset, -2 = infinite.
constexpr std::int64_t kUnset = -1;
constexpr std::int64_t kInfinite = -2;
std::optional<std::int64_t> as_no_val(const json::value& v) {
  if (v.is_null()) return kUnset;
  if (v.is_object()) {
    const json::object& o = v.get_object();
    if (auto it = o.find("infinite"); it != o.end() && it->value().is_bool() && it->value().get_bool()) return kInfinite;
    if (auto it = o.find("set"); it != o.end() && it->value().is_bool() && !it->value().get_bool()) return kUnset;
    if (auto it = o.find("number"); it != o.end()) return as_int(it->value());
    return kUnset;
  }
  return as_int(v);
}

// "4G", "512M", "100" (MB), "2T", "512K".
std::optional<std::uint64_t> parse_memory_text(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 15) return std::nullopt;
  std::uint64_t value = std::stoull(std::string(text.substr(0, digits)));
  std::string_view unit = text.substr(digits);
  if (unit.empty() || unit == "M" || unit == "m" || unit == "MB") return value;
  if (unit == "G" || unit == "g" || unit == "GB") return value * 1024;
  if (unit == "T" || unit == "t" || unit == "TB") return value * 1024 * 1024;
  if (unit == "K" || unit == "k" || unit == "KB") return (value + 1023) / 1024;
  return std::nullopt;
}

std::optional<std::uint64_t> parse_memory(const json::value& v) {
  if (v.is_string()) return parse_memory_text(v.get_string());
  auto n = as_no_val(v);
  if (!n) return std::nullopt;
  if (*n == kUnset || *n == kInfinite) return 0;  // "0 acts as infinity"
  return static_cast<std::uint64_t>(*n);
}

// time_str2mins: "MM", "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS", "UNLIMITED".
// Returns minutes, -2 for infinite, nullopt if unparsable.
std::optional<std::int64_t> parse_time_text(std::string_view text) {
  if (text == "UNLIMITED" || text == "unlimited" || text == "INFINITE" || text == "infinite") return kInfinite;
  std::int64_t days = 0;
  std::size_t dash = text.find('-');
  if (dash != std::string_view::npos) {
    auto d = parse_time_text(text.substr(0, dash));
    if (!d || text.substr(0, dash).find(':') != std::string_view::npos) return std::nullopt;
    days = *d;
    text = text.substr(dash + 1);
  }
  std::vector<std::int64_t> parts;
  std::string cur;
  for (char c : text) {
    if (c == ':') {
      if (cur.empty()) return std::nullopt;
      parts.push_back(std::stoll(cur));
      cur.clear();
    } else if (std::isdigit(static_cast<unsigned char>(c)) && cur.size() < 9) {
      cur.push_back(c);
    } else {
      return std::nullopt;
    }
  }
  if (cur.empty()) return std::nullopt;
  parts.push_back(std::stoll(cur));
  std::int64_t minutes = 0;
  if (dash != std::string_view::npos) {
    // D-HH[:MM[:SS]]
    minutes = days * 1440 + parts[0] * 60 + (parts.size() > 1 ? parts[1] : 0) + (parts.size() > 2 && parts[2] > 0 ? 1 : 0);
  } else if (parts.size() == 1) {
    minutes = parts[0];
  } else if (parts.size() == 2) {
    minutes = parts[0] + (parts[1] > 0 ? 1 : 0);
  } else if (parts.size() == 3) {
    minutes = parts[0] * 60 + parts[1] + (parts[2] > 0 ? 1 : 0);
  } else {
    return std::nullopt;
  }
  return minutes;
}

// A time limit in minutes: 0 = unlimited (INFINITE or unset), -1 = unparsable.
std::int64_t parse_time_limit(const json::value& v) {
  std::optional<std::int64_t> minutes = v.is_string() ? parse_time_text(v.get_string()) : as_no_val(v);
  if (!minutes) return -1;
  if (*minutes == kUnset || *minutes == kInfinite) return 0;
  if (*minutes < 0) return -1;
  return *minutes;
}

// "2", "1-4", 3, [1, 4], [2]: the minimum node count.
std::optional<std::uint32_t> parse_nodes(const json::value& v) {
  if (v.is_array()) {
    const json::array& a = v.get_array();
    if (a.empty() || a.size() > 2) return std::nullopt;
    auto n = as_int(a[0]);
    if (!n || *n < 1) return std::nullopt;
    return static_cast<std::uint32_t>(*n);
  }
  if (v.is_string()) {
    std::string_view s = v.get_string();
    std::size_t dash = s.find('-');
    std::string_view first = dash == std::string_view::npos ? s : s.substr(0, dash);
    auto n = as_int(json::value(json::string(first)));
    if (!n || *n < 1) return std::nullopt;
    return static_cast<std::uint32_t>(*n);
  }
  auto n = as_int(v);
  if (!n || *n < 1) return std::nullopt;
  return static_cast<std::uint32_t>(*n);
}

// The GPU count of "gpu:1", "gpu:h100:2" (after any "gres/" or "gres:" prefix).
std::uint32_t gpu_count(std::string_view spec) {
  for (std::string_view prefix : {"gres/", "gres:"}) {
    if (spec.substr(0, prefix.size()) == prefix) spec.remove_prefix(prefix.size());
  }
  if (spec.substr(0, 3) != "gpu") return 0;
  std::size_t colon = spec.rfind(':');
  if (colon == std::string_view::npos) return 1;
  auto n = as_int(json::value(json::string(spec.substr(colon + 1))));
  return n && *n > 0 ? static_cast<std::uint32_t>(*n) : 1;
}

JobRecord new_record(Dialect dialect, const SubmitDefaults& defaults) {
  JobRecord rec;
  rec.submitted_with = dialect;
  rec.user_name = defaults.user_name;
  rec.user_id = defaults.user_id;
  rec.group_name = defaults.group_name;
  rec.group_id = defaults.group_id;
  return rec;
}

// ---- v0.0.4x -------------------------------------------------------------------------

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

bool parse_environment(const json::value& v, std::vector<std::string>& out) {
  out.clear();
  if (v.is_array()) {
    for (const auto& item : v.get_array()) {
      if (!item.is_string()) return false;
      out.emplace_back(item.get_string());
    }
    return true;
  }
  if (v.is_object()) {
    for (const auto& kv : v.get_object()) {
      if (!kv.value().is_string()) return false;
      out.push_back(std::string(kv.key()) + "=" + std::string(kv.value().get_string()));
    }
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
      out.diag.warn("Ignoring unknown field \"" + std::string(kv.key()) + "\" of type " + type_name(kv.value()) + " in #",
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
      return refuse(err::kRestFailParsing, "Rejecting request. Failed to parse #/job: expected object but got " + type_name(*job),
                    "_job_post");
    }
    parts.emplace_back(&job->get_object(), "#/job");
  } else {
    if (!jobs->is_array()) {
      return refuse(err::kRestFailParsing, "Rejecting request. Failed to parse #/jobs: expected list but got " + type_name(*jobs),
                    "_job_post");
    }
    const json::array& list = jobs->get_array();
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (!list[i].is_object()) {
        return refuse(err::kRestFailParsing, "Rejecting request. Failed to parse #/jobs/" + std::to_string(i) +
                                                 ": expected object but got " + type_name(list[i]),
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
      return refuse(err::kRestFailParsing, "Rejecting request. Failed to parse #/script: expected string but got " +
                                               type_name(*script),
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

// ---- v0.0.38 -------------------------------------------------------------------------

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// slurm_process_option_data() failing on a value: the option's own message, then the
// handler's "Unable to process key".
void v38_value_error(Diagnostics& diag, const std::string& key, std::string message, int code) {
  diag.errors.push_back({code, "", "", ErrorItem::Form::error_first, std::move(message)});
  diag.errors.push_back({err::kUnspecified, "Unable to process key \"" + key + "\"", "slurm_process_option_data",
                         ErrorItem::Form::full, {}});
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
};

const V38StringField* v38_string_field(const std::string& key) {
  for (const auto& field : kV38StringFields) {
    if (key == field.key || (*field.alias != '\0' && key == field.alias)) return &field;
  }
  return nullptr;
}

// Applies one known v0.0.38 key that is not a plain string field; false (with the error in
// `diag`) if its value is refused.
bool apply_v38_value(const std::string& key, const json::value& v, JobRecord& rec, Diagnostics& diag,
                     bool& have_env) {
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
        diag.errors.push_back({0, "Disabled key: \"" + key + "\"", "openapi specification", ErrorItem::Form::no_number, {}});
        return false;
      case V38Key::known:
        break;
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

}  // namespace

SubmitParse parse_submit(std::string_view body, Dialect dialect, const SubmitDefaults& defaults) {
  boost::system::error_code ec;
  json::value root = json::parse(body, ec);
  if (ec) {
    SubmitParse out;
    out.unparsable_body = true;
    out.rc = err::kRestFailParsing;
    return out;
  }
  SubmitParse out = is_v4x(dialect) ? parse_v4x(root, dialect, defaults) : parse_v38(root, defaults);
  for (auto& rec : out.components) rec.planned_exit = planned_exit_code(out.components.front().script);
  return out;
}

SubmitCheck check_submit(std::vector<JobRecord>& components, const ClusterConfig& cluster, Dialect dialect) {
  SubmitCheck out;
  for (std::size_t i = 0; i < components.size(); ++i) {
    JobRecord& rec = components[i];
    if (rec.partition.empty()) {
      rec.partition = cluster.default_partition;
      rec.partition_defaulted = true;
    } else if (!cluster.has_partition(rec.partition)) {
      out.rc = err::kInvalidPartitionName;
      return out;
    }
    if (!rec.constraints.empty() && !cluster.constraint_satisfiable(rec.constraints)) {
      out.rc = err::kInvalidFeature;
      return out;
    }
    // slurmctld checks the batch component's environment (_copy_job_desc_to_file);
    // v0.0.38 has already demanded one in every component.
    if (i == 0 && is_v4x(dialect) && rec.environment.empty()) {
      out.rc = err::kEnvironmentMissing;
      return out;
    }
    if (!cluster.accounts.empty() && !rec.account.empty() && !cluster.accounts.count(rec.account)) {
      out.rc = err::kInvalidAccount;
      return out;
    }
    if (!cluster.accounts.empty() && rec.account.empty()) rec.account = *cluster.accounts.begin();
    if (!cluster.qos.empty() && !rec.qos.empty() && !cluster.qos.count(rec.qos)) {
      out.rc = err::kInvalidQos;
      return out;
    }
  }
  for (auto& rec : components) {
    if (rec.hold) {
      out.nonfatal = err::kJobHeld;
    } else if (rec.total_cpus() > cluster.cpus_per_node || rec.min_nodes > cluster.nodes.size()) {
      // Created, but never schedulable here: it stays pending.
      rec.auto_progress = false;
      rec.state_reason = "PartitionConfig";
      if (!out.nonfatal) out.nonfatal = err::kRequestedPartConfigUnavailable;
    }
  }
  return out;
}

int planned_exit_code(std::string_view script) {
  int code = 0;
  std::size_t pos = 0;
  while ((pos = script.find("exit", pos)) != std::string_view::npos) {
    bool word_start = pos == 0 || !(std::isalnum(static_cast<unsigned char>(script[pos - 1])) || script[pos - 1] == '_');
    std::size_t i = pos + 4;
    pos = i;
    if (!word_start || i >= script.size() || (script[i] != ' ' && script[i] != '\t')) continue;
    while (i < script.size() && (script[i] == ' ' || script[i] == '\t')) ++i;
    std::size_t start = i;
    while (i < script.size() && std::isdigit(static_cast<unsigned char>(script[i])) && i - start < 3) ++i;
    if (i > start) code = std::stoi(std::string(script.substr(start, i - start))) & 0xff;
  }
  return code;
}

}  // namespace tpslurm::sim
