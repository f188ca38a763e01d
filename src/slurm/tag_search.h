// Search by tag (SlurmClient::find_jobs_by_tag; internal to src/slurm/, RestClient calls it).
//
// A submit whose answer was lost blocks its job until the allocation is found (ARCHITECTURE.md
// §4 step 5). Two sources, both always consulted, in this order:
//   1. slurmctld's job list (`GET jobs`): every job it still holds, whatever its name now;
//   2. slurmdbd (`GET /slurmdb/vX/jobs?job_name=<name>&start_time=<window>`): jobs already
//      purged from slurmctld. The window starts at the intent time minus a day on the
//      server's clock, always given explicitly: without it slurmdbd silently searches from
//      midnight today only (REST-API.md §4.3).
// A record matches when two of name, comment and working directory match. Accounting often
// stores no comment (22.05 needs AccountingStoreFlags=job_comment), so slurmdbd matches are
// usually name + working directory. A source that is missing (no accounting: 404), down or
// refusing is reported as failed — the result is then incomplete and an empty one proves
// nothing. "Nothing found" answers (22.05: error 9003 with HTTP 200) are answers.
// slurmctld has no name filter, so its list costs every job's full record (~8 kB a job on
// 26.05, POLL-COSTS.md): a search is for a lost submit answer, never for polling.
#pragma once

#include <chrono>

#include "model/job_tag.h"
#include "slurm/dialect.h"
#include "slurm/rest_call.h"
#include "slurm/server_clock.h"
#include "slurm/slurm_client.h"

namespace tpslurm::slurm {

inline constexpr std::chrono::hours kSearchWindowMargin{24};

// `clock_note` is empty when the server's clock is known, else why not (it goes into the
// slurmdbd source's message).
SearchResult search_by_tag(RestCaller& caller, const Dialect& codec, const model::JobTag& tag, TimePoint intent_time,
                           const ServerClock& clock, const std::string& clock_note);

}  // namespace tpslurm::slurm
