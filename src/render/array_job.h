// render_array(): the held Slurm job array a sweep's runs are submitted as.
//
// Every run of the array is rendered as an attempt of its own (render_attempt), exactly as a
// job submitted alone, and its directory written as one. The array adds only a directory
// of its own (the tag's working directory, as the nodes see it) holding this script and
// `tasks/<t>`, a link to the directory of the run task t runs. Task t goes there and runs that
// attempt's own job.sh; Slurm writes its batch log to that attempt's logs/ through the same
// link (--output/--error with `%a`). So the array script holds no request value at all: only
// the array's directory and the task ids, which Slurm sets (SLURM_ARRAY_TASK_ID).
//
// One array is one shape: the runs' descriptions must be equal in everything but their tag,
// their batch logs and their script (array_shape_difference). The array's description is the
// first run's with the array's tag, logs and script, task ids 0..tasks-1 and at most
// `max_running` of them at once. A heterogeneous description is refused (Slurm has no
// heterogeneous job arrays). Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "model/job_tag.h"
#include "model/submit_description.h"
#include "render/template_engine.h"

namespace tpslurm::render {

// In the array's directory: one link per task, named by its task id.
inline constexpr std::string_view kArrayTasksDir = "tasks";

struct ArrayInputs {
  // The array's name and comment (its submit token), and the array's directory as the nodes
  // see it as the working directory.
  model::JobTag tag;
  std::uint32_t tasks = 0;                   // task ids 0..tasks-1
  std::optional<std::uint32_t> max_running;  // Slurm's `%` limit; empty: no limit
};

struct RenderedArray {
  std::string script;
  model::SubmitDescription submit;
};

// invalid_argument naming what is wrong: no tasks, a limit of 0, a heterogeneous description,
// an array directory that is not absolute, a value sbatch cannot read.
Result<RenderedArray> render_array(const model::SubmitDescription& first_run, const ArrayInputs& inputs,
                                   const TemplateSet& templates = TemplateSet::builtin(),
                                   RenderTrace* trace = nullptr);

// Where two runs' descriptions differ in anything one array cannot hold apart (anything but
// the tag, the batch logs and the script), in words naming the field; empty when they agree.
std::optional<std::string> array_shape_difference(const model::SubmitDescription& a,
                                                  const model::SubmitDescription& b);

}  // namespace tpslurm::render
