// Submit requests: reading a `POST job/submit` body the way each dialect does, and the
// checks slurmctld makes before it creates anything.
//
// parse_submit() plays slurmrestd's part: v0.0.38 needs a top-level `script`, an
// `environment` object in every component and rejects unknown keys (400, 9001); it
// turns any `requeue` into requeue=1 (22.05's bug) and honours `no_requeue`. v0.0.4x
// takes `job` or `jobs` (not both), the script top-level or in the first component,
// environment lists (or objects), NO_VAL structs, per-component `requeue`, and only
// warns about unknown fields; `tres_per_node` must say "gres/gpu:N" (a bare "gpu:N" is
// silently ignored, as slurmctld does).
// check_submit() plays slurmctld's part: unknown partition (2000), a constraint no node
// has (2029), missing environment (2127), unknown account/QoS under enforcement
// (2045/2066), plus the non-fatal codes that still create the job (held 2042, larger
// than any node 2015). Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cluster.h"
#include "envelope.h"
#include "job.h"
#include "release.h"

namespace tpslurm::sim {

struct SubmitParse {
  std::vector<JobRecord> components;
  Diagnostics diag;
  int rc = 0;                   // non-zero: refused before reaching slurmctld
  bool unparsable_body = false;  // not JSON at all: slurmrestd answers 400 text/plain
  bool top_level_script = false;  // v0.0.4x: the body has a non-empty top-level "script"
};

struct SubmitDefaults {
  std::string user_name = "root";
  std::uint32_t user_id = 0;
  std::string group_name = "root";
  std::uint32_t group_id = 0;
  std::string default_cwd = "/";  // slurmrestd's own working directory
};

SubmitParse parse_submit(std::string_view body, Dialect dialect, const SubmitDefaults& defaults);

struct SubmitCheck {
  int rc = 0;        // fatal: nothing is created
  int nonfatal = 0;  // the job is created, the code is reported alongside the job id
};

SubmitCheck check_submit(std::vector<JobRecord>& components, const ClusterConfig& cluster, Dialect dialect);

// The exit code of the last "exit N" in a script (the simulated job's outcome), 0 if none.
int planned_exit_code(std::string_view script);

}  // namespace tpslurm::sim
