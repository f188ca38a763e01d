// SimOptions: everything the simulator is started with (command line or test fixture).
//
// Timing: in automatic mode each job moves PENDING -> RUNNING -> (COMPLETING) -> terminal
// after the configured delays on the simulated clock; a negative delay means "stays
// there until stepped". In manual mode (`--timing manual`) nothing moves by itself and
// the control API steps jobs. MinJobAge (`--min-job-age`) is Slurm's: a finished job
// leaves slurmctld's views that long after it ended, and stays in slurmdbd's.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "cluster.h"
#include "release.h"

namespace tpslurm::sim {

struct Timing {
  bool automatic = true;
  std::int64_t pending_ms = 1000;
  std::int64_t running_ms = 2000;
  std::int64_t completing_ms = 1000;
};

struct SimOptions {
  std::string listen_host = "127.0.0.1";
  std::uint16_t port = 0;               // 0: pick a free port
  std::string control_listen;           // optional second listener serving only /sim/
  Release release = Release::r26_05_3;
  std::string jwt_key;                  // HS256 key bytes (content of --key-file)
  bool no_auth = false;
  bool manual_clock = false;
  std::int64_t manual_clock_start_ms = 1796040000000;  // 2026-11-30T12:00:00Z
  Timing timing;
  std::int64_t min_job_age_s = 300;     // Slurm's default MinJobAge
  std::uint32_t first_job_id = 1;
  std::uint16_t cluster_id = 0x5a3;     // SLUID cluster bits
  std::string slurm_user = "slurm";     // SlurmUser: may act for other users, like root
  // PrivateData=jobs (slurm.conf and slurmdbd.conf): slurmctld's job reads and listings and
  // slurmdbd's job searches show a user who is neither root nor SlurmUser only that user's
  // own jobs; jobs/state still lists every id (job_state.c does not hide).
  bool private_jobs = false;
  std::string default_cwd = "/";        // slurmrestd's working directory (jobs without one get it)
  ClusterConfig cluster;
};

// "manual", or "pending=1s,running=2s,completing=500ms" (units ms, s, m, h; "inf" or
// "never" for a state that is only left when stepped). Unnamed phases keep `base`.
Result<Timing> parse_timing(std::string_view text, Timing base = {});
// "1500ms", "2s", "5m", "1h" -> milliseconds; "inf"/"never" -> -1.
Result<std::int64_t> parse_millis(std::string_view text);
// "127.0.0.1:0" -> host and port.
Status parse_listen(std::string_view text, std::string& host, std::uint16_t& port);

}  // namespace tpslurm::sim
