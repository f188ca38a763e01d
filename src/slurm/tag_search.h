// Search by tag (SlurmClient::find_jobs_by_tags and find_jobs_by_tag; internal to src/slurm/,
// RestClient calls it).
//
// A submit whose answer was lost blocks its job until the allocation is found (docs/architecture.md
// §4 step 5). One search per cycle serves every blocked attempt. Two sources, both always
// consulted, in this order:
//   1. slurmctld's jobs, through SlurmctldListing (slurmctld_listing.h): every job it still
//      holds, whatever its name now, read once for all tags;
//   2. slurmdbd (`GET /slurmdb/vX/jobs?job_name=<a>%2C<b>…&start_time=<window>`): jobs already
//      purged from slurmctld, as many names per call as fit under the URL byte bound
//      (plan_name_batches). The window starts at the earliest intent time minus a day on the
//      server's clock, always given explicitly: without it slurmdbd silently searches from
//      midnight today only (docs/slurm.md, *slurmdbd's time window*).
// A record matches a tag when two of name, comment and working directory match. Accounting
// often stores no comment (22.05 needs AccountingStoreFlags=job_comment), so slurmdbd matches
// are usually name + working directory. Every call goes as SearchOptions::as_user. A slurmdbd
// that slurmrestd does not serve (404: no accounting) is reported absent: the search is
// complete without it, and what Slurm purged is known only from the attempt's evidence. A
// source that is down or refusing is reported as failed for every tag it answered for: that
// tag's result is then incomplete and an empty one proves nothing. "Nothing found" answers
// (22.05: error 9003 with HTTP 200) are answers.
#pragma once

#include <chrono>
#include <span>
#include <string>
#include <vector>

#include "model/job_tag.h"
#include "slurm/bulk_state.h"
#include "slurm/dialect.h"
#include "slurm/rest_call.h"
#include "slurm/server_clock.h"
#include "slurm/slurm_client.h"
#include "slurm/slurmctld_listing.h"

namespace tpslurm::slurm {

inline constexpr std::chrono::hours kSearchWindowMargin{24};

// Where a slurmdbd search by name starts: `intent` (the local clock's time) less
// kSearchWindowMargin, moved onto the server's clock by the lowest offset observed when one was.
struct SlurmdbdWindow {
  TimePoint start;
  bool on_server_clock = false;
};
SlurmdbdWindow slurmdbd_window(TimePoint intent, const ServerClock& clock);

// The names of each slurmdbd call, in order: each call's target stays within
// `max_target_bytes` (a single name whose target alone is longer still gets a call of its
// own); duplicates are searched once. Pure: for tests and benchmarks.
std::vector<std::vector<std::string>> plan_name_batches(const Dialect& codec, std::span<const std::string> names,
                                                        std::int64_t start_unix, std::size_t max_target_bytes);

// A slurmdbd call answered 404: slurmrestd serves no slurmdbd endpoints (the cluster keeps no
// accounting, or slurmrestd runs without its slurmdbd plugins).
bool slurmdbd_not_served(const CallResult& answer);

// Why a tag cannot be searched (no name; a comma in the name, which slurmdbd's job_name list
// splits on), or empty.
std::string tag_search_problem(const model::JobTag& tag);

// `clock_note` is empty when the server's clock is known, else why not (it goes into each
// slurmdbd report's message).
BatchSearchResult search_by_tags(RestCaller& caller, const Dialect& codec, SlurmctldListing& listing,
                                 std::span<const model::JobTag> tags, TimePoint earliest_intent,
                                 const SearchOptions& options, const BulkLimits& limits, const ServerClock& clock,
                                 const std::string& clock_note);

}  // namespace tpslurm::slurm
