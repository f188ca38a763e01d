// Bulk state polling (SlurmClient::bulk_state; internal to src/slurm/, RestClient calls it).
//
// v0.0.4x: `GET jobs/state?job_id=a&job_id=b…`, one parameter per id because 26.05.3 answers a
// comma list with a 500 and ignores SLUIDs there (REAL-26.05-NOTES.md). Ids are sorted and
// deduplicated, then cut into calls of at most `max_ids_per_call` ids whose target stays under
// `max_target_bytes` (2,000 ids — a 24 kB URL — were accepted by 26.05.3; 500 per call keeps
// N jobs at ⌈N/500⌉ calls, docs/slurm.md, *What a poll costs*). The first failing call stops the poll: its ids and
// the ones not yet asked are `unanswered`, never `not_reported`.
//
// Job arrays: slurmctld answers an asked master with every record of its array (job_mgr.c
// _foreach_job_by_id_array at slurm-26-05-3-1), named "M_t" for each task pending in the meta
// record and "N_t" for a task split off as job N, which never names M (job_state_entry.h). An
// entry named by an asked id is that master's; one named by an id not asked is a split task of
// the one array in its call, and when a call answered for several arrays and held such
// entries, each of those masters is asked again alone (one call each) to tell them apart.
//
// v0.0.38 (22.05): `GET jobs?update_time=<since>` answers 304 when nothing changed anywhere,
// else every job of every user; the asked ids (and components of asked leaders, and every record
// of an asked array: array_job_id) are picked out. A meta record's array_task_string becomes one
// entry per pending task; one cut with "..." puts the master in incomplete_arrays.
// The next baseline is the server's earliest possible time before the call, less a second
// (update_time has one-second resolution): a baseline later than the server's own time would
// hide a change, an earlier one only costs a repeated list.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "base/result.h"
#include "slurm/dialect.h"
#include "slurm/rest_call.h"
#include "slurm/server_clock.h"
#include "slurm/slurm_client.h"

namespace tpslurm::slurm {

struct BulkLimits {
  std::size_t max_ids_per_call = 500;
  std::size_t max_target_bytes = 8000;

  // invalid_argument naming the field when a limit is 0.
  Status check() const;
};

// Zeros and duplicates dropped, ascending.
std::vector<std::uint32_t> normalize_ids(std::span<const std::uint32_t> ids);

// The ids of each jobs/state call, in order (pure: for tests and benchmarks). A single id whose
// target alone exceeds the byte bound still gets a call of its own.
std::vector<std::vector<std::uint32_t>> plan_jobs_state_calls(const Dialect& codec, std::span<const std::uint32_t> ids,
                                                              const BulkLimits& limits);

BulkStateResult poll_jobs_state(RestCaller& caller, const Dialect& codec, std::span<const std::uint32_t> ids,
                                const BulkLimits& limits);

// `clock` may not know the server's time yet; then next_since stays empty.
BulkStateResult poll_update_time(RestCaller& caller, const Dialect& codec, std::span<const std::uint32_t> ids,
                                 std::optional<TimePoint> since, const ServerClock& clock);

}  // namespace tpslurm::slurm
