// The JSON view of a sweep: what `status --sweep ID --json` prints and GET /v1/sweeps/{id}
// answers (docs/api.md, "Sweeps"):
//   {"sweep_id", "request_sha256", "run_count", "max_running" (null: none), "user" (null: none),
//    "submitted_by" (null: the CLI), "created_at", "phases": {PHASE: count of its runs, ...},
//    "runs": [{"index", "job_id", "phase"}, ...] in the sweep's order}
// `phases` names only the phases some run is in. Reads the journal once.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string_view>

#include "base/result.h"
#include "journal/journal.h"

namespace tpslurm::operations {

// nullopt when the journal has no such sweep.
Result<std::optional<boost::json::object>> sweep_status(journal::Journal& journal, std::string_view sweep_id);

}  // namespace tpslurm::operations
