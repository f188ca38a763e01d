#include "model/launch_request.h"

#include <algorithm>
#include <set>

#include "model/detail/canonical_json.h"
#include "model/detail/json_fields.h"
#include "model/detail/json_input.h"
#include "model/mount_source.h"
#include "model/names.h"
#include "model/runtime_path.h"

namespace tpslurm::model {
namespace json = boost::json;
using detail::Fields;
using detail::Need;

namespace {

constexpr detail::JsonLimits kRequestLimits{RequestLimits::max_body_bytes, RequestLimits::max_depth,
                                            RequestLimits::max_string_bytes};

bool is_pool_name(std::string_view name) {
  return !name.empty() && name.size() <= 32 &&
         name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") ==
             std::string_view::npos &&
         name.front() != '.' && name.front() != '-';
}

// "a, b, c" from each item's name, or "(none)".
template <class Range, class Name>
std::string list_names(const Range& items, Name name) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += ", ";
    out += name(item);
  }
  return out.empty() ? "(none)" : out;
}

template <class Map>
std::string list_keys(const Map& map) {
  return list_names(map, [](const auto& entry) -> const std::string& { return entry.first; });
}

std::string list_names(const std::vector<std::string>& names) {
  return list_names(names, [](const std::string& name) -> const std::string& { return name; });
}

class RequestParser {
 public:
  RequestParser(const ValidationContext& context, Problems& problems) : m_context(context), m_problems(problems) {}

  void parse(const json::object& root, LaunchRequest& out) {
    Fields top(root, "", m_problems);
    if (auto id = top.string("job_id", Need::required)) {
      if (!is_valid_job_id(*id)) {
        m_problems.add("job_id", quote_value(*id),
                       "must match [a-z0-9][a-z0-9-]{0,62} (lower-case letters, digits and '-', at most 63)");
      }
      out.job_id = std::move(*id);
    }
    bool user_named_well = false;
    if (auto user = top.string("user", m_context.users != nullptr ? Need::required : Need::optional)) {
      user_named_well = is_platform_user_name(*user);
      if (!user_named_well) {
        m_problems.add("user", quote_value(*user),
                       "must be a platform user name: lower-case letters, digits, '.', '_' and '-', starting with a "
                       "letter or digit, at most 64");
      }
      out.user = std::move(*user);
    }
    if (auto type = top.string("type", Need::required)) {
      check_type(*type);
      out.type = std::move(*type);
    }
    if (const json::object* spec = top.object("spec", Need::required)) parse_spec(*spec, out);
    if (const json::object* credentials = top.object("credentials", Need::required)) {
      Fields fields(*credentials, "credentials", m_problems);
      out.ingest_token = fields.string("ingest_token", Need::required);
      fields.reject_unknown();
    }
    top.reject_unknown();
    if (m_context.users != nullptr && user_named_well) check_mapped_user(*m_context.users, out);
  }

 private:
  void check_type(const std::string& type) {
    if (type == "playground") {
      m_problems.add("type", quote_value(type),
                     "Playground is not supported on Slurm: compute nodes have no inbound path from the console; "
                     "run it on a fleet that supports Playground");
    } else if (type == "deployment") {
      m_problems.add("type", quote_value(type),
                     "Model Deployment is not supported on Slurm: compute nodes have no inbound path to serve from; "
                     "deploy it on a fleet that supports deployments");
    } else if (type != "custom" && type != "training") {
      m_problems.add("type", quote_value(type), "must be \"custom\" or \"training\"");
    }
  }

  void parse_spec(const json::object& spec, LaunchRequest& out) {
    Fields fields(spec, "spec", m_problems);
    if (const json::object* framework = fields.object("framework", Need::required)) parse_framework(*framework, out);
    parse_command(fields, out);
    if (auto dir = fields.string("working_dir", Need::optional)) {
      if (auto why = runtime_path_problem(*dir, PathKind::container)) {
        m_problems.add("spec.working_dir", quote_value(*dir), *why);
      }
      out.working_dir = std::move(*dir);
    }
    parse_env(fields, out);
    parse_pools(fields, out);
    parse_mounts(fields, out);
    if (auto minutes = fields.integer("time_limit_minutes", Need::optional, 1, RequestLimits::max_time_limit_minutes)) {
      out.time_limit_minutes = static_cast<int>(*minutes);
    }
    out.partition = slurm_name(fields, "partition");
    if (const json::object* retry = fields.object("retry", Need::optional)) {
      Fields retry_fields(*retry, "spec.retry", m_problems);
      if (auto attempts = retry_fields.integer("max_attempts", Need::optional, 1, RequestLimits::max_attempts)) {
        out.max_attempts = static_cast<int>(*attempts);
      }
      retry_fields.reject_unknown();
    }
    if (const json::object* slurm = fields.object("slurm", Need::optional)) {
      Fields slurm_fields(*slurm, "spec.slurm", m_problems);
      out.slurm.account = slurm_name(slurm_fields, "account");
      out.slurm.qos = slurm_name(slurm_fields, "qos");
      out.slurm.reservation = slurm_name(slurm_fields, "reservation");
      out.slurm.wckey = slurm_name(slurm_fields, "wckey");
      out.slurm.exclusive = slurm_fields.boolean("exclusive", Need::optional);
      slurm_fields.reject_unknown();
    }
    if (auto grace = fields.integer("checkpoint_grace_seconds", Need::optional, 1, 86400)) {
      out.checkpoint_grace_seconds = static_cast<int>(*grace);
      if (out.time_limit_minutes && *grace >= std::int64_t{*out.time_limit_minutes} * 60) {
        m_problems.add("spec.checkpoint_grace_seconds", std::to_string(*grace),
                       "must be shorter than the time limit (" + std::to_string(*out.time_limit_minutes * 60) +
                           " s); lower it or raise spec.time_limit_minutes");
      }
    }
    if (const json::object* data = fields.object("data", Need::optional)) {
      Fields data_fields(*data, "spec.data", m_problems);
      if (const json::value* volumes = data_fields.get("volumes")) {
        const bool empty = volumes->is_array() && volumes->get_array().empty();
        if (!empty) {
          m_problems.add("spec.data.volumes",
                         "volumes are not supported on Slurm: the platform does not control the bind list of a "
                         "SIF or SQSH image, so the mount would be empty; use spec.mounts with paths under the "
                         "storage root instead");
        }
      }
      data_fields.reject_unknown();
    }
    fields.reject_unknown();
  }

  std::optional<std::string> slurm_name(Fields& fields, std::string_view key) {
    auto value = fields.string(key, Need::optional);
    if (!value) return std::nullopt;
    if (auto why = slurm_name_problem(*value)) {
      m_problems.add(fields.path_of(key), quote_value(*value), *why);
      return std::nullopt;
    }
    return value;
  }

  void parse_framework(const json::object& framework, LaunchRequest& out) {
    Fields fields(framework, "spec.framework", m_problems);
    if (auto name = fields.string("name", Need::required)) out.framework = std::move(*name);
    const bool has_image = fields.has("image");
    if (auto image = fields.string("image", Need::optional)) {
      m_problems.add("spec.framework.image", quote_value(*image),
                     "OCI images are not materialised on Slurm; publish a SQSH/SIF artifact in the runtime registry "
                     "(TUNEPLANE_RUNTIME_REGISTRY_FILE) and name it in spec.framework.runtime_id");
    }
    auto runtime_id = fields.string("runtime_id", has_image ? Need::optional : Need::required);
    fields.reject_unknown();
    if (!runtime_id) return;
    out.runtime_id = *runtime_id;
    if (out.framework == "custom" && runtime_id->rfind("custom-", 0) != 0) {
      m_problems.add("spec.framework.runtime_id", quote_value(*runtime_id),
                     "a custom job's runtime must be named custom-…; publish the artifact as \"custom-" + *runtime_id +
                         "\" in the runtime registry");
      return;
    }
    const Runtime* runtime = m_context.runtimes.find(*runtime_id);
    if (runtime == nullptr) {
      m_problems.add("spec.framework.runtime_id", quote_value(*runtime_id),
                     "not in the runtime registry; publish it there (TUNEPLANE_RUNTIME_REGISTRY_FILE) or use one of: " +
                         list_keys(m_context.runtimes.all()));
      return;
    }
    if (!out.framework.empty() && runtime->framework != out.framework) {
      m_problems.add("spec.framework.name", quote_value(out.framework),
                     "runtime \"" + runtime->id + "\" is published for framework \"" + runtime->framework +
                         "\"; use that framework or another runtime");
    }
    if (!runtime->artifact_for(m_context.profile)) {
      const bool apptainer = m_context.profile == RuntimeProfile::apptainer;
      m_problems.add("spec.framework.runtime_id", quote_value(*runtime_id),
                     std::string("has no ") + (apptainer ? "sif" : "sqsh") + " artifact, which the " +
                         std::string(to_string(m_context.profile)) + " runtime profile needs; publish one or set " +
                         "TUNEPLANE_SLURM_RUNTIME_PROFILE=" + (apptainer ? "enroot-pyxis" : "apptainer"));
    }
  }

  void parse_command(Fields& fields, LaunchRequest& out) {
    const json::array* command = fields.array("command", Need::required);
    if (command == nullptr) return;
    if (command->empty()) {
      m_problems.add("spec.command", "[]", "must name the program to run and its arguments");
      return;
    }
    if (command->size() > RequestLimits::max_command_args) {
      m_problems.add("spec.command", "has " + std::to_string(command->size()) + " arguments; the limit is " +
                                         std::to_string(RequestLimits::max_command_args));
      return;
    }
    for (std::size_t i = 0; i < command->size(); ++i) {
      // Arguments may be empty strings; only the program name may not.
      if (auto arg = detail::string_at((*command)[i], detail::index_path("spec.command", i), m_problems, i == 0)) {
        if (i == 0 && arg->front() == '-') {
          m_problems.add("spec.command[0]", quote_value(*arg), "must name a program; it may not start with '-'");
        }
        out.command.push_back(std::move(*arg));
      }
    }
  }

  void parse_env(Fields& fields, LaunchRequest& out) {
    const json::object* env = fields.object("env", Need::optional);
    if (env == nullptr) return;
    if (env->size() > RequestLimits::max_env_vars) {
      m_problems.add("spec.env", "has " + std::to_string(env->size()) + " variables; the limit is " +
                                     std::to_string(RequestLimits::max_env_vars));
      return;
    }
    for (const auto& entry : *env) {
      const std::string name(entry.key().data(), entry.key().size());
      const std::string path = detail::child_path("spec.env", name);
      if (auto why = request_env_name_problem(name)) {
        m_problems.add(path, *why);
        continue;
      }
      if (auto value = detail::string_at(entry.value(), path, m_problems, false)) {
        out.env.emplace_back(name, std::move(*value));
      }
    }
    std::sort(out.env.begin(), out.env.end());
  }

  void parse_pools(Fields& fields, LaunchRequest& out) {
    const json::array* pools = fields.array("pools", Need::required);
    if (pools == nullptr) return;
    if (pools->empty()) {
      m_problems.add("spec.pools", "[]", "needs at least one pool");
      return;
    }
    if (pools->size() > RequestLimits::max_pools) {
      m_problems.add("spec.pools", "has " + std::to_string(pools->size()) + " pools; the limit is " +
                                       std::to_string(RequestLimits::max_pools));
      return;
    }
    std::set<std::string> names;
    bool any_cpu_only = false;
    for (std::size_t i = 0; i < pools->size(); ++i) {
      const std::string path = detail::index_path("spec.pools", i);
      if (!(*pools)[i].is_object()) {
        m_problems.add(path, detail::show((*pools)[i]), "must be an object");
        continue;
      }
      Pool pool = parse_pool((*pools)[i].get_object(), path);
      if (!pool.name.empty() && !names.insert(pool.name).second) {
        m_problems.add(path + ".name", quote_value(pool.name), "is used by an earlier pool; pool names must be unique");
      }
      any_cpu_only = any_cpu_only || pool.gpus_per_node == 0;
      out.pools.push_back(std::move(pool));
    }
    if (any_cpu_only) check_cpu_only(*pools, out);
  }

  Pool parse_pool(const json::object& object, const std::string& path) {
    Fields fields(object, path, m_problems);
    Pool pool;
    if (auto name = fields.string("name", Need::required)) {
      if (!is_pool_name(*name)) {
        m_problems.add(fields.path_of("name"), quote_value(*name),
                       "must be 1-32 letters, digits, '_', '.' or '-', not starting with '.' or '-'");
      }
      pool.name = std::move(*name);
    }
    if (auto nodes = fields.integer("nodes", Need::required, 1, RequestLimits::max_nodes_per_pool)) {
      pool.nodes = static_cast<int>(*nodes);
    }
    if (auto gpus = fields.integer("gpus_per_node", Need::required, 0, RequestLimits::max_gpus_per_node)) {
      pool.gpus_per_node = static_cast<int>(*gpus);
    }
    if (auto cpus = fields.integer("cpus", Need::optional, 1, RequestLimits::max_cpus_per_node)) {
      pool.cpus = static_cast<int>(*cpus);
    }
    if (auto memory = fields.number("memory_gb", Need::optional, 0.001, RequestLimits::max_memory_gb)) {
      pool.memory_mb = static_cast<std::int64_t>(*memory * 1024.0 + 0.5);
    }
    if (const json::value* scratch = fields.get("scratch_gb")) {
      m_problems.add(fields.path_of("scratch_gb"), detail::show(*scratch),
                     "scratch space is not supported on Slurm; the job's temporary space is its attempt's scratch/ "
                     "directory on the shared filesystem");
    }
    if (pool.gpus_per_node > 0 && !fields.has("cpus")) {
      m_problems.add(fields.path_of("cpus"),
                     "is required; give the CPUs each node of the pool needs (one task per node gets them all)");
    }
    if (auto series = fields.string("gpu_series", Need::optional)) {
      pool.gpu_series = std::move(*series);
      check_gpu_series(fields, pool);
    } else if (pool.gpus_per_node > 0 && !fields.has("gpu_series")) {
      m_problems.add(fields.path_of("gpu_series"),
                     "is required for a pool with GPUs; name a series from the GPU "
                     "series catalog (TUNEPLANE_GPU_SERIES_FILE)");
    }
    fields.reject_unknown();
    return pool;
  }

  void check_gpu_series(Fields& fields, const Pool& pool) {
    const std::string path = fields.path_of("gpu_series");
    if (pool.gpus_per_node == 0) {
      m_problems.add(path, quote_value(pool.gpu_series),
                     "a pool without GPUs (gpus_per_node 0) takes no gpu_series; remove it or request GPUs");
      return;
    }
    const GpuSeries* series = m_context.gpu_series.find(pool.gpu_series);
    if (series == nullptr) {
      m_problems.add(path, quote_value(pool.gpu_series),
                     "not in the GPU series catalog; add it there (TUNEPLANE_GPU_SERIES_FILE) or use one of: " +
                         list_keys(m_context.gpu_series.all()));
      return;
    }
    if (!series->slurm_constraint) {
      m_problems.add(path, quote_value(pool.gpu_series),
                     "no slurm_constraint in the GPU series catalog; add one or pick a series that has it");
    }
    if (pool.gpus_per_node > series->gpus_per_node) {
      m_problems.add(fields.path_of("gpus_per_node"), std::to_string(pool.gpus_per_node),
                     "series \"" + series->name + "\" has " + std::to_string(series->gpus_per_node) +
                         " GPUs per node; ask for at most that many");
    }
  }

  // Counts the entries of spec.pools, not the pools parsed: an entry that is not an object was
  // reported and left out, and the one pool checked here must be entry 0.
  void check_cpu_only(const json::array& pools, const LaunchRequest& out) {
    if (pools.size() != 1) {
      m_problems.add("spec.pools", "a pool without GPUs makes this a CPU-only job, which has exactly one pool (got " +
                                       std::to_string(pools.size()) +
                                       "); remove the other pools or give every pool GPUs");
      return;
    }
    const Pool& pool = out.pools.front();
    const json::object& object = pools[0].get_object();
    if (out.type != "custom" || out.framework != "custom") {
      m_problems.add("spec.pools[0].gpus_per_node", "0",
                     "CPU-only jobs must be type \"custom\" with framework \"custom\"");
    }
    if (pool.nodes > 1) {
      m_problems.add("spec.pools[0].nodes", std::to_string(pool.nodes),
                     "a CPU-only job runs on exactly one node; multi-node CPU jobs are not supported on Slurm");
    }
    if (!object.contains("cpus")) {
      m_problems.add("spec.pools[0].cpus", "a CPU-only job needs a positive number of CPUs");
    }
    if (!object.contains("memory_gb")) {
      m_problems.add("spec.pools[0].memory_gb", "a CPU-only job needs a positive amount of memory");
    }
  }

  void parse_mounts(Fields& fields, LaunchRequest& out) {
    const json::array* mounts = fields.array("mounts", Need::optional);
    if (mounts == nullptr) return;
    if (mounts->size() > RequestLimits::max_mounts) {
      m_problems.add("spec.mounts", "has " + std::to_string(mounts->size()) + " mounts; the limit is " +
                                        std::to_string(RequestLimits::max_mounts));
      return;
    }
    std::set<std::string> targets;
    const std::vector<std::string> images = image_paths(m_context.runtimes);
    for (std::size_t i = 0; i < mounts->size(); ++i) {
      const std::string path = detail::index_path("spec.mounts", i);
      if (!(*mounts)[i].is_object()) {
        m_problems.add(path, detail::show((*mounts)[i]), "must be an object");
        continue;
      }
      Fields mount_fields((*mounts)[i].get_object(), path, m_problems);
      Mount mount;
      mount.read_only = mount_fields.boolean("read_only", Need::optional).value_or(false);
      if (auto source = mount_fields.string("source", Need::required)) {
        if (auto why = mount_source_problem(*source, mount.read_only, images)) {
          m_problems.add(mount_fields.path_of("source"), quote_value(*source), *why);
        }
        mount.source = std::move(*source);
      }
      if (auto target = mount_fields.string("target", Need::required)) {
        check_mount_target(mount_fields.path_of("target"), *target, targets);
        mount.target = std::move(*target);
      }
      mount_fields.reject_unknown();
      out.mounts.push_back(std::move(mount));
    }
  }

  // The target is compared as written with the reserved tree and the earlier targets: the
  // path rule makes that one spelling the only one.
  void check_mount_target(const std::string& path, const std::string& target, std::set<std::string>& seen) {
    if (auto why = runtime_path_problem(target, PathKind::container)) {
      m_problems.add(path, quote_value(target), *why);
    } else if (target == "/") {
      m_problems.add(path, quote_value(target),
                     "would cover the container's whole filesystem, the attempt directory included; pick a directory");
    } else if (path_holds("/tuneplane", target)) {
      m_problems.add(path, quote_value(target), "/tuneplane is reserved for the platform's own mounts; pick another");
    } else if (!seen.insert(target).second) {
      m_problems.add(path, quote_value(target), "is the target of an earlier mount; targets must be unique");
    }
  }

  // What the user may ask Slurm for: the account, QoS and partition the job would use.
  void check_mapped_user(const UserMap& users, const LaunchRequest& request) {
    const MappedUser* user = users.find(*request.user);
    if (user == nullptr) {
      m_problems.add("user", quote_value(*request.user),
                     "is not in the user map (TUNEPLANE_USER_MAP_FILE): only its users' jobs run here; ask the "
                     "operator to map this user to a Unix user");
      return;
    }
    if (m_context.refused_users != nullptr) {
      if (auto refused = m_context.refused_users->find(user->platform_user); refused != m_context.refused_users->end()) {
        m_problems.add("user", quote_value(*request.user), refused->second);
      }
    }
    if (request.slurm.account && !user->may_use_account(*request.slurm.account)) {
      m_problems.add("spec.slurm.account", quote_value(*request.slurm.account),
                     "is not an account \"" + user->platform_user + "\" may use (allowed: " + list_names(user->accounts) +
                         "); leave it out for " + user->accounts.front());
    }
    if (request.slurm.qos && !user->may_use_qos(*request.slurm.qos)) {
      m_problems.add("spec.slurm.qos", quote_value(*request.slurm.qos),
                     "is not a QoS \"" + user->platform_user + "\" may use (allowed: " + list_names(user->qos) +
                         "); leave it out for the account's default");
    }
    if (request.partition) {
      if (!user->may_use_partition(*request.partition)) {
        m_problems.add("spec.partition", quote_value(*request.partition),
                       "is not a partition \"" + user->platform_user + "\" may use (allowed: " +
                           list_names(user->partitions) + ")");
      }
      return;
    }
    const std::string_view site = request.is_cpu_only() ? m_context.default_cpu_partition : m_context.default_partition;
    if (!site.empty() && !user->may_use_partition(site)) {
      m_problems.add("spec.partition", "",
                     "is not given, and the site's partition " + quote_value(site) + " is not one \"" +
                         user->platform_user + "\" may use; name one of " + list_names(user->partitions));
    }
  }

  const ValidationContext& m_context;
  Problems& m_problems;
};

}  // namespace

bool LaunchRequest::is_cpu_only() const { return pools.size() == 1 && pools.front().gpus_per_node == 0; }

bool is_valid_job_id(std::string_view id) {
  if (id.empty() || id.size() > 63 || id.front() == '-') return false;
  return id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") == std::string_view::npos;
}

Result<LaunchRequest, Problems> parse_launch_request(std::string_view text, const ValidationContext& context) {
  auto parsed = detail::parse_untrusted_json(text, kRequestLimits, "the request");
  if (!parsed.ok()) return parsed.error();
  Problems problems;
  if (!parsed->is_object()) {
    problems.add("", "the request must be a JSON object");
    return problems;
  }
  LaunchRequest request;
  RequestParser(context, problems).parse(parsed->get_object(), request);
  if (!problems.empty()) return problems;
  json::object without_credentials = parsed->get_object();
  without_credentials.erase("credentials");
  request.canonical_json = detail::canonical_json(without_credentials);
  return request;
}

}  // namespace tpslurm::model
