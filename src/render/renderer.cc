#include "render/renderer.h"

#include <string_view>

#include "render/attempt_files.h"
#include "render/job_plan.h"
#include "render/sbatch_directives.h"
#include "render/shell_quote.h"

namespace tpslurm::render {
namespace {

// How long the Ray driver waits for every node to join before the attempt fails: image
// loading on many nodes from a parallel filesystem takes minutes.
constexpr int kRayWaitSeconds = 600;

// Ray makes its Unix sockets under its temp directory, as
// <temp>/session_<%Y-%m-%d_%H-%M-%S_%f>_<pid>/sockets/plasma_store (and raylet; another one on
// the same host gets ".1"), and refuses a path longer than sun_path holds (107 bytes and the
// NUL on Linux; node.py _prepare_socket_file). The tail below is the longest: a 7-digit pid
// (pid_max is at most 2^22) and a two-digit suffix.
constexpr std::size_t kSunPathMax = 107;
constexpr std::string_view kLongestRaySocketTail =
    "/session_2026-11-30_12-00-00_123456_4194304/sockets/plasma_store.99";
// The temp directory is <base>/tp-ray-<Slurm job id> (job ids are 32-bit: at most 10 digits),
// so the base may take what is left; the script falls back to /tmp for a longer one.
constexpr std::string_view kLongestRayTempName = "/tp-ray-4294967295";
constexpr std::size_t kRayBaseMax = kSunPathMax - kLongestRaySocketTail.size() - kLongestRayTempName.size();
static_assert(kRayBaseMax >= std::string_view("/tmp").size());

std::string log_path(std::string_view name, std::string_view stream) {
  return std::string(kLogsDir) + "/" + std::string(name) + "." + std::string(stream);
}

model::AttemptLog log_file(std::string name, int component) {
  model::AttemptLog log{std::move(name), component, {}, {}};
  log.stdout_path = log_path(log.name, "out");
  log.stderr_path = log_path(log.name, "err");
  return log;
}

std::string component_log_name(int index) { return "component-" + std::to_string(index); }

// Step options shared by every srun line: placement inside the allocation and the log files.
TemplateValue step_value(const PlannedComponent& component, const std::string& dir) {
  const model::AttemptLog log = log_file(component_log_name(component.index), component.index);
  TemplateValue value;
  value.set("index", component.index);
  value.set("nodes", component.submit.nodes);
  value.set("cpus_per_task", component.submit.cpus_per_task);
  value.set("has_gres", !component.submit.gres_per_node.empty());
  value.set("gres", component.submit.gres_per_node);
  value.set("rank_offset", component.rank_offset);
  value.set("stdout", attempt_path(dir, log.stdout_path));
  value.set("stderr", attempt_path(dir, log.stderr_path));
  return value;
}

std::string fixed_environment_exports(const model::Settings& settings) {
  std::string out;
  for (const auto& [name, value] : fixed_job_environment(settings)) {
    if (!out.empty()) out += '\n';
    out += "export " + name + "=" + shell_quote(value);
  }
  return out;
}

TemplateValue script_data(const model::LaunchRequest& request, const JobPlan& plan, const AttemptInputs& inputs,
                          const model::Settings& settings, const std::string& sbatch_lines) {
  const std::string& dir = plan.cluster_attempt_dir;
  TemplateValue data;
  data.set("shell_sbatch_lines", sbatch_lines);
  data.set("shell_fixed_environment", fixed_environment_exports(settings));
  data.set("job_id", request.job_id);
  data.set("attempt", inputs.attempt);
  data.set("attempt_dir", dir);
  data.set("env_file", attempt_path(dir, kEnvFile));
  data.set("command_file", attempt_path(dir, kCommandFile));
  data.set("image_path", plan.image.cluster_path);
  data.set("image_sha256", plan.image.sha256);
  data.set("mounts", plan.bind_list);
  data.set("storage_root", plan.cluster_storage_root);
  TemplateValue mount_sources = TemplateValue::list();
  for (const auto& source : plan.mount_sources) mount_sources.push(source);
  data.set("mount_sources", std::move(mount_sources));
  data.set("working_dir", request.working_dir);
  data.set("has_working_dir", !request.working_dir.empty());
  data.set("component_count", static_cast<int>(plan.components.size()));
  data.set("job_evidence_file", attempt_path(dir, kJobEvidenceFile));
  data.set("exit_evidence_file", attempt_path(dir, kExitEvidenceFile));
  data.set("verified_nodes_dir", attempt_path(dir, kVerifiedNodesDir));
  data.set("exit_verify", kExitImageVerification);
  data.set("exit_container", kExitContainerSetup);
  data.set("gpu", plan.gpu);
  data.set("heterogeneous", plan.components.size() > 1);
  data.set("total_nodes", plan.total_nodes);

  TemplateValue components = TemplateValue::list();
  for (const auto& component : plan.components) components.push(step_value(component, dir));
  data.set("components", std::move(components));

  // launcher ray: the head takes the first node of component 0, workers every other node.
  TemplateValue head = step_value(plan.components.front(), dir);
  TemplateValue workers = TemplateValue::list();
  for (const auto& component : plan.components) {
    const int nodes = component.submit.nodes - (component.index == 0 ? 1 : 0);
    if (nodes <= 0) continue;
    TemplateValue worker = step_value(component, dir);
    worker.set("nodes", nodes);
    worker.set("exclude_head", component.index == 0);
    workers.push(std::move(worker));
  }
  const model::AttemptLog program = log_file("program", 0);
  TemplateValue driver;
  driver.set("index", 0);
  driver.set("stdout", attempt_path(dir, program.stdout_path));
  driver.set("stderr", attempt_path(dir, program.stderr_path));
  data.set("ray_head", std::move(head));
  data.set("ray_workers", std::move(workers));
  data.set("ray_program", std::move(driver));
  data.set("ray_wait_seconds", kRayWaitSeconds);
  data.set("ray", plan.ray);
  data.set("ray_base_max", static_cast<int>(kRayBaseMax));
  return data;
}

// The env file and the command file: what the task's wrapper reads inside the container.
struct RequestFiles {
  std::string env;
  std::string command;
};

Result<RequestFiles> request_files(const model::LaunchRequest& request, const JobPlan& plan,
                                   const TemplateSet& templates, RenderTrace* trace) {
  TemplateValue env_data;
  TemplateValue variables = TemplateValue::list();
  for (const auto& [name, value] : plan.environment) {
    TemplateValue variable;
    variable.set("name", name);
    variable.set("value", value);
    variables.push(std::move(variable));
  }
  env_data.set("variables", std::move(variables));
  auto env = render_template(templates, "env", env_data, trace);
  if (!env.ok()) return env.error();

  TemplateValue command_data;
  TemplateValue command = TemplateValue::list();
  for (const auto& arg : request.command) command.push(arg);
  command_data.set("command", std::move(command));
  auto command_file = render_template(templates, "command", command_data, trace);
  if (!command_file.ok()) return command_file.error();
  return RequestFiles{std::move(*env), std::move(*command_file)};
}

std::vector<model::AttemptLog> log_files(const JobPlan& plan) {
  std::vector<model::AttemptLog> logs = {log_file("batch", -1)};
  for (const auto& component : plan.components)
    logs.push_back(log_file(component_log_name(component.index), component.index));
  if (plan.ray) logs.push_back(log_file("program", 0));
  return logs;
}

std::string script_template(const JobPlan& plan) {
  return std::string("job-") + (plan.ray ? "ray" : "srun") + "-" + std::string(model::to_string(plan.profile));
}

model::Problems render_failure(const Error& error) {
  model::Problems problems;
  problems.add("", "cannot render the attempt: " + error.message());
  return problems;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> fixed_job_environment(const model::Settings& settings) {
  return {{"PATH", settings.job_path}, {"LANG", "C.UTF-8"}};
}

Result<RenderedAttempt, model::Problems> render_attempt(const model::LaunchRequest& request,
                                                        const model::Runtime& runtime,
                                                        const model::GpuSeriesCatalog& gpu_series,
                                                        const model::Settings& settings, const AttemptInputs& inputs,
                                                        const TemplateSet& templates, RenderTrace* trace) {
  auto planned = plan_job(request, runtime, gpu_series, settings, inputs);
  if (!planned.ok()) return planned.error();
  JobPlan& plan = *planned;

  auto sbatch_lines = sbatch_directives(plan.submit);
  if (!sbatch_lines.ok()) return render_failure(sbatch_lines.error());
  std::string lines = std::move(*sbatch_lines);
  if (!lines.empty() && lines.back() == '\n') lines.pop_back();

  auto script = render_template(templates, script_template(plan), script_data(request, plan, inputs, settings, lines), trace);
  if (!script.ok()) return render_failure(script.error());

  auto files = request_files(request, plan, templates, trace);
  if (!files.ok()) return render_failure(files.error());

  RenderedAttempt out;
  out.script = std::move(*script);
  out.env_file = std::move(files->env);
  out.command_file = std::move(files->command);
  out.submit = std::move(plan.submit);
  out.submit.script = out.script;
  model::AttemptLayout& layout = out.layout;
  layout.job_id = request.job_id;
  layout.attempt = inputs.attempt;
  layout.submit_token = inputs.submit_token;
  layout.group = settings.storage_group;
  layout.unix_user = inputs.unix_user;
  const model::AttemptModes modes = model::attempt_modes(layout.access());
  layout.directories = {{std::string(kLogsDir), modes.writable_directory},
                        {std::string(kScratchDir), modes.writable_directory}};
  layout.files = {{std::string(kScriptFile), out.script, modes.file, {}},
                  {std::string(kEnvFile), out.env_file, modes.file, {}},
                  {std::string(kCommandFile), out.command_file, modes.file, {}}};
  if (!inputs.job_credential_path.empty()) {
    layout.directories.push_back({std::string(kCredentialsDir), modes.directory});
    layout.files.push_back({std::string(kCredentialFile), {}, modes.file, inputs.job_credential_path});
  }
  layout.image = std::move(plan.image);
  layout.logs = log_files(plan);
  return out;
}

}  // namespace tpslurm::render
