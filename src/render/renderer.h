// render_attempt(): everything one attempt of a job needs, computed without any I/O.
//
// From a validated LaunchRequest, its runtime, the GPU series catalog, the settings and the
// attempt's identity it produces the batch script, the env file, the command file, the
// dialect-neutral SubmitDescription and the list of files and directories of the attempt
// directory (attempt_files.h). The request's environment and command go only into the env and
// command files, which the task's wrapper reads inside the container: no name or value of
// spec.env or spec.command is in the batch script, so none reaches a process on the host. The caller writes them (storage::write_attempt_directory) and checks the
// image (storage artifact hashing) before anything is submitted.
//
// The renderer fails closed: anything it cannot render faithfully is a Problem naming the
// field and the fix, never an empty or guessed option (a GPU series without a
// slurm_constraint, a runtime without the profile's artifact, a value sbatch cannot read, a
// variable the batch shell itself owns, a mount that would hide the attempt directory, ...).
// Every path it hands a container runtime (mount sources and targets, the working directory,
// the image, the storage root as the nodes see it, the attempt directory) is held to
// model/runtime_path.h's rule here again. The validator, the registry and the settings loader
// refuse most of these first; the renderer does not rely on them.
//
// Deterministic: the same inputs give the same bytes. Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "model/attempt_layout.h"
#include "model/gpu_series.h"
#include "model/launch_request.h"
#include "model/problems.h"
#include "model/runtime_registry.h"
#include "model/settings.h"
#include "model/submit_description.h"
#include "render/template_engine.h"

namespace tpslurm::render {

using model::AttemptInputs;  // storage::attempt_inputs() composes it

struct RenderedAttempt {
  std::string script;
  std::string env_file;      // POSIX sh: NAME='value' lines
  std::string command_file;  // POSIX sh: set -- 'arg0' 'arg1' ...
  model::SubmitDescription submit;
  model::AttemptLayout layout;  // what storage::write_attempt_directory() writes
};

// The fixed REST environment of every job (PATH from TUNEPLANE_SLURM_JOB_PATH, LANG): never
// the user's variables.
std::vector<std::pair<std::string, std::string>> fixed_job_environment(const model::Settings& settings);

Result<RenderedAttempt, model::Problems> render_attempt(const model::LaunchRequest& request,
                                                        const model::Runtime& runtime,
                                                        const model::GpuSeriesCatalog& gpu_series,
                                                        const model::Settings& settings, const AttemptInputs& inputs,
                                                        const TemplateSet& templates = TemplateSet::builtin(),
                                                        RenderTrace* trace = nullptr);

}  // namespace tpslurm::render
