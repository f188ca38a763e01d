// The `#SBATCH` lines of a batch script, generated from its SubmitDescription.
//
// slurmrestd ignores them; they exist so that `sbatch job.sh` by hand submits the same job,
// so they are derived from the one description the REST codecs send, never written apart.
// Job-level settings are repeated in every component (as the codecs copy them), requeue is
// off in every component (`--no-requeue`), and components are separated by `#SBATCH hetjob`.
// invalid_argument when a value cannot be written for sbatch's parser (shell_quote.h).
// Pure function; thread-safe.
#pragma once

#include <string>

#include "base/result.h"
#include "model/submit_description.h"

namespace tpslurm::render {

// One line per option, each ending in '\n'.
Result<std::string> sbatch_directives(const model::SubmitDescription& description);

}  // namespace tpslurm::render
