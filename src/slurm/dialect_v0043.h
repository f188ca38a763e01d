// The v0.0.43 codec (Slurm 25.05; still served by 25.11 and 26.05). See REST-API.md §2-6 and the
// 26.05.3 transcripts 42-44 in tests/fixtures/slurm/samples-v0.0.45/.
//
// As v0.0.45 (dialect_v0045.h) for everything this client sends and reads, but with no SLUID
// anywhere: job records have no `step_id`, slurmdbd records skip it. A job is known by its
// job id plus its tag (model/job_tag.h), even on a 26.05 server.
#pragma once

#include <memory>

#include "slurm/dialect.h"

namespace tpslurm::slurm {

std::unique_ptr<Dialect> make_dialect_v0043();

}  // namespace tpslurm::slurm
