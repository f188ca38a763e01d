// Reads the #SBATCH lines of a script back into a SubmitDescription, following sbatch's own
// rules (whitespace splits, quotes group, backslash escapes, '#' starts a comment, "hetjob"
// separates components, the first command line ends the header). Written independently of
// the generator so that a test comparing the two proves they agree.
#pragma once

#include <string>

#include "base/result.h"
#include "model/submit_description.h"

namespace tpslurm::render::testing {

// The description's scheduling fields (no script, no environment). Fails when an option is
// unknown, a job-level option differs between components, or a component lacks --no-requeue.
Result<model::SubmitDescription> read_sbatch_directives(const std::string& script);

}  // namespace tpslurm::render::testing
