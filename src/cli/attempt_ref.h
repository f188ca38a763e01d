// An attempt as an operator names it on the command line: JOB/N, or JOB for its newest.
#pragma once

#include <string>

#include "base/result.h"
#include "journal/journal.h"

namespace tpslurm::cli {

// not_found naming the job or the number, with an example of what to give.
Result<journal::AttemptRecord> find_attempt(journal::Journal& journal, const std::string& spec);

}  // namespace tpslurm::cli
