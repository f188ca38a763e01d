#include "render/job_plan.h"

#include <algorithm>
#include <array>

#include "base/file_system.h"
#include "model/job_tag.h"
#include "model/mount_source.h"
#include "model/names.h"
#include "model/runtime_path.h"
#include "render/attempt_files.h"
#include "render/shell_quote.h"

namespace tpslurm::render {
namespace {

using model::Problems;
using model::PathKind;
using model::quote_value;
using model::runtime_path_problem;

bool has_nul(std::string_view value) { return value.find('\0') != std::string_view::npos; }

class Planner {
 public:
  Planner(const model::LaunchRequest& request, const model::Runtime& runtime, const model::GpuSeriesCatalog& catalog,
          const model::Settings& settings, const AttemptInputs& inputs)
      : m_request(request), m_runtime(runtime), m_catalog(catalog), m_settings(settings), m_inputs(inputs) {}

  Result<JobPlan, Problems> plan() {
    m_plan.profile = m_settings.runtime_profile;
    m_plan.cluster_attempt_dir = m_inputs.cluster_attempt_dir;
    check_identity();
    check_storage_root();
    plan_image();
    check_command();
    plan_components();
    plan_mounts();
    plan_environment();
    plan_submit();
    if (!m_problems.empty()) return m_problems;
    return std::move(m_plan);
  }

 private:
  // A value that goes into an #SBATCH line.
  void sbatch_safe(const std::string& path, const std::string& value) {
    if (auto why = sbatch_unsafe_reason(value)) {
      m_problems.add(path, quote_value(value), "cannot be written as an #SBATCH option: it " + *why);
    }
  }

  void check_identity() {
    if (m_settings.instance.empty()) {
      m_problems.add("TUNEPLANE_INSTANCE",
                     "is empty; every job name carries the instance id (tp-<instance>-<job>-<n>)");
    } else {
      sbatch_safe("TUNEPLANE_INSTANCE", m_settings.instance);
    }
    if (!model::is_valid_job_id(m_request.job_id)) {
      m_problems.add("job_id", quote_value(m_request.job_id), "must match [a-z0-9][a-z0-9-]{0,62}");
    }
    if (m_inputs.attempt < 1) m_problems.add("attempt", std::to_string(m_inputs.attempt), "must be 1 or more");
    if (m_inputs.submit_token.empty()) m_problems.add("submit token", "is empty; every attempt has one");
    sbatch_safe("submit token", m_inputs.submit_token);
    // The attempt directory is bound at its own path and names the job's log files: held to the
    // runtimes' path rule, which leaves nothing an #SBATCH line could not hold either.
    const std::string& dir = m_inputs.cluster_attempt_dir;
    if (dir.empty() || dir.front() != '/' || m_inputs.local_attempt_dir.empty()) {
      m_problems.add("attempt directory", quote_value(dir), "must be an absolute path on both sides");
    } else if (auto why = runtime_path_problem(dir, PathKind::host)) {
      m_problems.add("attempt directory", quote_value(dir), *why);
    }
    if (m_request.ingest_token && m_inputs.job_credential_path.empty()) {
      m_problems.add("credentials.ingest_token",
                     "has no credential file to copy into the attempt; write the job's "
                     "credential (at submit) before rendering an attempt");
    }
  }

  // The storage root as the nodes see it is joined into the image path and the bind list, so it
  // is held to the runtimes' path rule; it is named by the setting it came from.
  void check_storage_root() {
    const std::string& local = m_settings.storage_root;
    if (local.empty() || local.front() != '/') {
      m_problems.add("TUNEPLANE_STORAGE_ROOT", quote_value(local),
                     "must be an absolute path: images and attempt directories live under it");
      return;
    }
    const std::string& cluster = m_settings.slurm_storage_root;
    const bool elsewhere = !cluster.empty() && cluster != local;
    const std::string& root = elsewhere ? cluster : local;
    if (auto why = runtime_path_problem(root, PathKind::host)) {
      m_problems.add(elsewhere ? "TUNEPLANE_SLURM_STORAGE_ROOT" : "TUNEPLANE_STORAGE_ROOT", quote_value(root), *why);
      return;
    }
    m_cluster_root = root;
  }

  void plan_image() {
    if (m_runtime.id != m_request.runtime_id) {
      m_problems.add("spec.framework.runtime_id", quote_value(m_request.runtime_id),
                     "was rendered with runtime \"" + m_runtime.id + "\"; look the runtime up by this id");
      return;
    }
    const auto& artifact = m_runtime.artifact_for(m_plan.profile);
    if (!artifact) {
      const bool apptainer = m_plan.profile == model::RuntimeProfile::apptainer;
      m_problems.add("spec.framework.runtime_id", quote_value(m_request.runtime_id),
                     std::string("has no ") + (apptainer ? "sif" : "sqsh") + " artifact, which the " +
                         std::string(model::to_string(m_plan.profile)) + " runtime profile needs; publish one or set " +
                         "TUNEPLANE_SLURM_RUNTIME_PROFILE=" + (apptainer ? "enroot-pyxis" : "apptainer"));
      return;
    }
    if (auto why = runtime_path_problem(artifact->path, PathKind::storage)) {
      m_problems.add("spec.framework.runtime_id", quote_value(m_request.runtime_id),
                     "its image path " + quote_value(artifact->path) + " " + *why);
      return;
    }
    if (!m_cluster_root) return;
    m_plan.image = {artifact->path, join_path(m_settings.storage_root, artifact->path),
                    join_path(*m_cluster_root, artifact->path), artifact->sha256};
  }

  void check_command() {
    if (m_request.command.empty()) {
      m_problems.add("spec.command", "[]", "must name the program to run and its arguments");
      return;
    }
    if (m_request.command.front().empty() || m_request.command.front().front() == '-') {
      m_problems.add("spec.command[0]", quote_value(m_request.command.front()),
                     "must name a program (it may not be empty or start with '-')");
    }
    for (std::size_t i = 0; i < m_request.command.size(); ++i) {
      if (has_nul(m_request.command[i])) {
        m_problems.add("spec.command[" + std::to_string(i) + "]", "contains a NUL byte, which no argument can hold");
      }
    }
    if (!m_request.working_dir.empty()) {
      if (auto why = runtime_path_problem(m_request.working_dir, PathKind::container)) {
        m_problems.add("spec.working_dir", quote_value(m_request.working_dir), *why);
      }
    }
  }

  void plan_components() {
    const bool cpu_only = m_request.is_cpu_only();
    if (m_request.pools.empty()) {
      m_problems.add("spec.pools", "[]", "needs at least one pool");
      return;
    }
    const std::string partition = m_request.partition.value_or(
        cpu_only && !m_settings.cpu_partition.empty() ? m_settings.cpu_partition : m_settings.partition);
    sbatch_safe(m_request.partition                             ? "spec.partition"
                : cpu_only && !m_settings.cpu_partition.empty() ? "TUNEPLANE_SLURM_CPU_PARTITION"
                                                                : "TUNEPLANE_SLURM_PARTITION",
                partition);
    int offset = 0;
    for (std::size_t i = 0; i < m_request.pools.size(); ++i) {
      const model::Pool& pool = m_request.pools[i];
      const std::string path = "spec.pools[" + std::to_string(i) + "]";
      PlannedComponent component;
      component.index = static_cast<int>(i);
      component.rank_offset = offset;
      component.submit.partition = partition;
      component.submit.nodes = pool.nodes;
      component.submit.tasks_per_node = 1;
      component.submit.cpus_per_task = pool.cpus;
      component.submit.memory_mb = pool.memory_mb;
      if (pool.nodes < 1) m_problems.add(path + ".nodes", std::to_string(pool.nodes), "must be at least 1");
      if (!cpu_only && pool.cpus <= 0) {
        m_problems.add(path + ".cpus", std::to_string(pool.cpus), "must be a positive number of CPUs");
      }
      if (pool.memory_mb < 0) m_problems.add(path + ".memory_gb", "must be positive");
      if (cpu_only) {
        check_cpu_only(pool, path);
      } else {
        plan_gpus(pool, path, component.submit);
      }
      offset += pool.nodes;
      m_plan.components.push_back(std::move(component));
    }
    m_plan.total_nodes = offset;
    m_plan.gpu = !cpu_only;
    m_plan.ray = !cpu_only && m_runtime.launcher == model::Launcher::ray;
  }

  void check_cpu_only(const model::Pool& pool, const std::string& path) {
    if (m_request.type != "custom" || m_request.framework != "custom") {
      m_problems.add(path + ".gpus_per_node", "0", "CPU-only jobs must be type \"custom\" with framework \"custom\"");
    }
    if (pool.nodes != 1) {
      m_problems.add(path + ".nodes", std::to_string(pool.nodes),
                     "a CPU-only job runs on exactly one node; multi-node CPU jobs are not supported on Slurm");
    }
    if (pool.cpus <= 0) m_problems.add(path + ".cpus", "a CPU-only job needs a positive number of CPUs");
    if (pool.memory_mb <= 0) m_problems.add(path + ".memory_gb", "a CPU-only job needs a positive amount of memory");
  }

  void plan_gpus(const model::Pool& pool, const std::string& path, model::SubmitComponent& submit) {
    if (pool.gpus_per_node <= 0) {
      m_problems.add(path + ".gpus_per_node", std::to_string(pool.gpus_per_node),
                     "a pool without GPUs makes this a CPU-only job, which has exactly one pool; give every pool GPUs");
      return;
    }
    const model::GpuSeries* series = m_catalog.find(pool.gpu_series);
    if (series == nullptr) {
      m_problems.add(path + ".gpu_series", quote_value(pool.gpu_series),
                     "not in the GPU series catalog; add it there (TUNEPLANE_GPU_SERIES_FILE)");
      return;
    }
    // Fail closed: without a constraint the component could land on any GPU node.
    if (!series->slurm_constraint || series->slurm_constraint->empty()) {
      m_problems.add(path + ".gpu_series", quote_value(pool.gpu_series),
                     "no slurm_constraint in the GPU series catalog; add one or pick a series that has it");
      return;
    }
    if (pool.gpus_per_node > series->gpus_per_node) {
      m_problems.add(path + ".gpus_per_node", std::to_string(pool.gpus_per_node),
                     "series \"" + series->name + "\" has " + std::to_string(series->gpus_per_node) +
                         " GPUs per node; ask for at most that many");
    }
    if (series->gres.empty()) {
      m_problems.add(path + ".gpu_series", quote_value(pool.gpu_series), "has no gres in the GPU series catalog");
      return;
    }
    submit.constraint = *series->slurm_constraint;
    submit.gres_per_node = series->gres + ":" + std::to_string(pool.gpus_per_node);
    sbatch_safe(path + ".gpu_series", submit.constraint);
    sbatch_safe(path + ".gpu_series", submit.gres_per_node);
  }

  void plan_mounts() {
    const std::string& dir = m_inputs.cluster_attempt_dir;
    std::vector<std::string> binds = {dir + ":" + dir + ":ro",
                                      attempt_path(dir, kScratchDir) + ":" + attempt_path(dir, kScratchDir)};
    // Without a storage root the plan has failed already; the mounts are still checked, so that
    // every problem is reported at once.
    m_plan.cluster_storage_root = m_cluster_root.value_or("");
    const std::vector<std::string> images = model::image_paths(m_runtime);
    for (std::size_t i = 0; i < m_request.mounts.size(); ++i) {
      const model::Mount& mount = m_request.mounts[i];
      const std::string path = "spec.mounts[" + std::to_string(i) + "]";
      if (auto why = model::mount_source_problem(mount.source, mount.read_only, images)) {
        m_problems.add(path + ".source", quote_value(mount.source), *why);
        continue;
      }
      if (auto why = runtime_path_problem(mount.target, PathKind::container)) {
        m_problems.add(path + ".target", quote_value(mount.target), *why);
        continue;
      }
      // The attempt directory is mounted at its own path; a user mount there would hide it. Both
      // are in normal form, so no other spelling of the target escapes this comparison.
      if (model::paths_overlap(mount.target, dir)) {
        m_problems.add(path + ".target", quote_value(mount.target),
                       "would cover the attempt directory " + quote_value(dir) + "; pick another target");
        continue;
      }
      binds.push_back(join_path(m_plan.cluster_storage_root, mount.source) + ":" + mount.target +
                      (mount.read_only ? ":ro" : ""));
      m_plan.mount_sources.push_back(mount.source);
    }
    for (const auto& bind : binds) {
      if (!m_plan.bind_list.empty()) m_plan.bind_list += ',';
      m_plan.bind_list += bind;
    }
  }

  void plan_environment() {
    const std::string& dir = m_inputs.cluster_attempt_dir;
    auto& env = m_plan.environment;
    env.emplace_back("TUNEPLANE_JOB_ID", m_request.job_id);
    env.emplace_back("TUNEPLANE_ATTEMPT", std::to_string(m_inputs.attempt));
    env.emplace_back("TUNEPLANE_ATTEMPT_DIR", dir);
    if (!m_inputs.job_credential_path.empty()) {
      env.emplace_back("TUNEPLANE_INGEST_TOKEN_FILE", attempt_path(dir, kCredentialFile));
    }
    env.emplace_back("TMPDIR", attempt_path(dir, kScratchDir));
    for (const auto& [name, value] : m_request.env) {
      const std::string path = "spec.env." + name;
      if (auto why = model::request_env_name_problem(name)) {
        m_problems.add(path, *why);
      } else if (has_nul(value)) {
        m_problems.add(path, "contains a NUL byte, which no environment variable can hold");
      } else {
        env.emplace_back(name, value);
      }
    }
  }

  void plan_submit() {
    model::SubmitDescription& submit = m_plan.submit;
    const std::string& dir = m_inputs.cluster_attempt_dir;
    submit.tag =
        model::JobTag::make(m_settings.instance, m_request.job_id, m_inputs.attempt, m_inputs.submit_token, dir);
    submit.standard_output = attempt_path(dir, "logs/batch.out");
    submit.standard_error = attempt_path(dir, "logs/batch.err");
    submit.environment = fixed_job_environment(m_settings);
    const auto pick = [&](const std::optional<std::string>& requested, const std::string& configured,
                          std::string_view field, std::string_view setting) {
      const std::string value = requested.value_or(configured);
      sbatch_safe(requested ? "spec.slurm." + std::string(field) : std::string(setting), value);
      return value;
    };
    submit.account = pick(m_request.slurm.account, m_settings.account, "account", "TUNEPLANE_SLURM_ACCOUNT");
    submit.qos = pick(m_request.slurm.qos, m_settings.qos, "qos", "TUNEPLANE_SLURM_QOS");
    submit.reservation =
        pick(m_request.slurm.reservation, m_settings.reservation, "reservation", "TUNEPLANE_SLURM_RESERVATION");
    submit.wckey = pick(m_request.slurm.wckey, m_settings.wckey, "wckey", "TUNEPLANE_SLURM_WCKEY");
    submit.exclusive = m_request.slurm.exclusive.value_or(false);
    submit.time_limit_minutes = m_request.time_limit_minutes;
    if (m_request.checkpoint_grace_seconds) {
      submit.signal = model::WarningSignal{"USR1", *m_request.checkpoint_grace_seconds, true};
    }
    for (const auto& component : m_plan.components) submit.components.push_back(component.submit);
  }

  const model::LaunchRequest& m_request;
  const model::Runtime& m_runtime;
  const model::GpuSeriesCatalog& m_catalog;
  const model::Settings& m_settings;
  const AttemptInputs& m_inputs;
  std::optional<std::string> m_cluster_root;  // the storage root as the nodes see it, once checked
  JobPlan m_plan;
  Problems m_problems;
};

}  // namespace

std::string attempt_path(const std::string& cluster_attempt_dir, std::string_view relative) {
  return join_path(cluster_attempt_dir, relative);
}

Result<JobPlan, Problems> plan_job(const model::LaunchRequest& request, const model::Runtime& runtime,
                                   const model::GpuSeriesCatalog& gpu_series, const model::Settings& settings,
                                   const AttemptInputs& inputs) {
  return Planner(request, runtime, gpu_series, settings, inputs).plan();
}

}  // namespace tpslurm::render
