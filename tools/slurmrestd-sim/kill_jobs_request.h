// The body of `DELETE /slurm/vX/jobs` (KILL_JOBS_MSG, v0.0.40 and later): `jobs`, a list of
// job id strings passed to slurmctld unchanged ("12", "12_3"), and `signal` (a number or a
// name; default SIGKILL). The filters (`job_name`, `account`, `partition`, `qos`,
// `reservation`, `job_state`, `user_id`, `user_name`, `wckey`, `nodes`) and `flags` are not
// simulated: a body naming one is reported in `unsupported`. Pure function; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpslurm::sim {

struct KillJobsParse {
  bool unparsable_body = false;  // not JSON: slurmrestd answers 400 text/plain
  bool refused = false;          // not an object, or `jobs` not a list of strings
  std::vector<std::string> jobs;
  std::optional<long long> signal_number;
  std::optional<std::string> signal_name;
  std::string unsupported;  // the first filter or flag named, "" if none
};

KillJobsParse parse_kill_jobs(std::string_view body);

}  // namespace tpslurm::sim
