// The sweep request: one request naming a base LaunchRequest and N runs, each run a platform
// job of its own (docs/api.md, "Sweeps").
//
//   {"sweep_id": "sw-1", "max_running": 8,
//    "base": {a LaunchRequest without job_id, credentials and spec.command},
//    "runs": [{"job_id": "...", "credentials": {"ingest_token": "..."}, "command": [...], "env": {...}}]}
//
// Run i's LaunchRequest is the base with the run's job_id and credentials, spec.command the
// run's command and spec.env the base's env with the run's merged over it (the run's value wins
// for a name both set). A run may set nothing else: every run of a sweep has the base's image,
// mounts, pool, time limit, partition, Slurm options, user and retries, so that the runs can
// later be one Slurm job array. parse_sweep_request() checks the sweep's own rules (sweep_id,
// one pool, 1 to max_runs runs, max_running from 1 to the number of runs, job ids unique within
// the sweep, no other run fields) and validates every run's LaunchRequest as
// parse_launch_request() does. It collects every problem: a run's as `runs[i].job_id`,
// `runs[i].credentials…`, `runs[i].command…` and `runs[i].env…`, one of the base once as
// `base.…`, whichever run showed it.
//
// A valid sweep carries its canonical JSON without any run's credentials (keys sorted, no
// whitespace): the sweep's idempotency hash is taken over that text.
//
// Pure values; no I/O. Thread-compatible.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "model/launch_request.h"
#include "model/problems.h"

namespace tpslurm::model {

struct SweepLimits {
  // A run is a few hundred bytes (1,000 runs of a job id, a 64-character token, a four-word
  // command and two variables are about 235 kB); 16 MiB holds 10,000 runs of up to 1.6 kB.
  static constexpr std::size_t max_body_bytes = 16 << 20;  // 16 MiB
  static constexpr std::size_t max_runs = 10000;
};

struct SweepRequest {
  std::string sweep_id;
  std::optional<int> max_running;  // at most this many runs at once; none: no limit of the sweep's
  std::vector<LaunchRequest> runs;  // run i's full LaunchRequest, in the order given
  std::string canonical_json;       // the sweep without the runs' credentials, canonical form
};

Result<SweepRequest, Problems> parse_sweep_request(std::string_view json, const ValidationContext& context);

}  // namespace tpslurm::model
