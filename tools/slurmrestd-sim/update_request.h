// Update requests: reading a `POST job/{id}` (job update) body the way each dialect does.
//
// v0.0.4x (openapi/slurmctld jobs.c _job_post_update at slurm-26-05-3-1): the body is one
// JOB_DESC_MSG; an unknown field is a warning ("Ignoring unknown field ..."), a body the
// parser cannot read (not an object, `hold` not a boolean) is error 9000 "Rejecting request.
// Failure parsing job update request." and nothing is updated. `hold: null` is ignored (the
// HOLD parser reads null as "not given").
// v0.0.38 (openapi/v0.0.38 jobs.c _handle_job_post at slurm-22-05-8-1): the body is one job's
// sbatch options, keys lower-cased; an unknown or disabled key stops the parse with the same
// numberless error a submit gets, then "job parsing failed" with 9001 — but the handler
// returns success, so the answer is HTTP 200 and nothing is updated; a list (a het job) is
// "unexpected het job request", also 200.
// Only `hold` has an effect on the simulated job; every other known field is accepted and
// ignored. Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "envelope.h"
#include "release.h"

namespace tpslurm::sim {

struct UpdateParse {
  std::optional<bool> hold;      // set when the body asks to hold (true) or release (false)
  Diagnostics diag;              // warnings, and the errors of a refused body
  bool refused = false;          // the body was refused: nothing reaches slurmctld
  int rc = 0;                    // the refusal's HTTP-deciding error number (0: answered 200)
  bool unparsable_body = false;  // not JSON at all: slurmrestd answers 400 text/plain
};

// `client` is the connection's name, as 22.05's messages quote it.
UpdateParse parse_update(std::string_view body, Dialect dialect, const std::string& client);

}  // namespace tpslurm::sim
