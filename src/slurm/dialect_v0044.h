// The v0.0.44 codec (Slurm 25.11; also served by 26.05). See REST-API.md §2-6 and the 26.05.3
// transcripts 39-41 in tests/fixtures/slurm/samples-v0.0.45/.
//
// As v0.0.45 (dialect_v0045.h) for everything this client sends and reads, except that
// slurmdbd records carry no SLUID. slurmctld records carry `step_id.sluid`, but a 25.11 server
// accepts no SLUID in a path: there lifecycle calls go by job id and the SLUID is only checked
// (server_info.h decides that from the release, whatever the version).
#pragma once

#include <memory>

#include "slurm/dialect.h"

namespace tpslurm::slurm {

std::unique_ptr<Dialect> make_dialect_v0044();

}  // namespace tpslurm::slurm
