#include "render/array_job.h"

#include "render/attempt_files.h"
#include "render/sbatch_directives.h"
#include "render/template_value.h"

namespace tpslurm::render {
namespace {

std::string array_path(const std::string& array_dir, std::string_view relative) {
  return array_dir + (array_dir.ends_with('/') ? "" : "/") + std::string(relative);
}

Status check_inputs(const model::SubmitDescription& first_run, const ArrayInputs& inputs) {
  if (inputs.tasks == 0) return invalid_argument("a job array needs at least one task");
  if (inputs.max_running && *inputs.max_running == 0) {
    return invalid_argument("max_running 0 would never start a task: leave it out for no limit");
  }
  if (first_run.heterogeneous()) {
    return invalid_argument("Slurm has no heterogeneous job arrays: a sweep's runs must have one pool");
  }
  if (!inputs.tag.working_directory.starts_with('/')) {
    return invalid_argument("the array's directory must be an absolute path, not '" +
                                   inputs.tag.working_directory + "'");
  }
  return {};
}

}  // namespace

Result<RenderedArray> render_array(const model::SubmitDescription& first_run, const ArrayInputs& inputs,
                                   const TemplateSet& templates, RenderTrace* trace) {
  if (Status valid = check_inputs(first_run, inputs); !valid.ok()) return valid.error();
  const std::string& array_dir = inputs.tag.working_directory;
  const std::string task_dir = array_path(array_dir, kArrayTasksDir) + "/%a/";
  RenderedArray out;
  model::SubmitDescription& submit = out.submit;
  submit = first_run;
  submit.tag = inputs.tag;
  submit.standard_output = task_dir + std::string(kLogsDir) + "/batch.out";
  submit.standard_error = task_dir + std::string(kLogsDir) + "/batch.err";
  submit.array = model::ArraySpec{0, inputs.tasks - 1, inputs.max_running};

  auto lines = sbatch_directives(submit);
  if (!lines.ok()) return lines.error().with_context("the job array's #SBATCH lines");
  if (!lines->empty() && lines->back() == '\n') lines->pop_back();
  TemplateValue data;
  data.set("shell_sbatch_lines", *lines);
  data.set("tasks_dir", array_path(array_dir, kArrayTasksDir));
  data.set("script_file", std::string(kScriptFile));
  data.set("exit_container", kExitContainerSetup);
  auto script = render_template(templates, "array", data, trace);
  if (!script.ok()) return script.error().with_context("the job array's script");
  out.script = std::move(*script);
  submit.script = out.script;
  return out;
}

std::optional<std::string> array_shape_difference(const model::SubmitDescription& a,
                                                  const model::SubmitDescription& b) {
  const auto differs = [](std::string_view field) {
    return std::optional<std::string>("the runs differ in " + std::string(field) + ": one job array runs one shape");
  };
  if (a.components != b.components) return differs("their resources (partition, constraint, nodes, CPUs, memory, GPUs)");
  if (a.environment != b.environment) return differs("their fixed environment");
  if (a.account != b.account || a.qos != b.qos || a.reservation != b.reservation || a.wckey != b.wckey) {
    return differs("their account, QoS, reservation or wckey");
  }
  if (a.exclusive != b.exclusive) return differs("exclusive");
  if (a.time_limit_minutes != b.time_limit_minutes) return differs("their time limit");
  if (a.signal != b.signal) return differs("their checkpoint signal");
  if (a.hold != b.hold) return differs("hold");
  if (a.unix_user != b.unix_user) return differs("the Unix user they run as");
  if (a.array != b.array) return differs("their array");
  return std::nullopt;
}

}  // namespace tpslurm::render
