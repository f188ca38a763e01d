// ServerInfo and IdPolicy: which Slurm answered, and which id each operation must use.
//
// The release comes from `meta.slurm.release` (v0.0.38: `meta.Slurm.release`) of every answer;
// the REST version in the URL does not tell it (a 26.05 server still serves v0.0.43). The
// policy is docs/architecture.md §4's table in code:
//
//   | operation | >= 26.05 (+ SLUID in records) | 25.11 | 25.05 / v0.0.43 | 22.05 |
//   | identify  | GET by id -> tag + SLUID      | same  | GET by id -> tag | same  |
//   | refresh   | GET by SLUID                  | GET by id, SLUID must match | GET by id, tag must match | same |
//   | cancel    | DELETE by leader SLUID        | by id after SLUID check | by id after tag check | same |
//
// SLUIDs are in job records only from 25.11 and only in v0.0.44+ records; they are accepted
// in paths only from 26.05. Anything older is "degraded": identity is job id + tag.
//
// ReleaseRules: what follows the release rather than the REST version. From 23.11 one
// slurmrestd handler serves every data_parser version (v0.0.40 on), so these hold for each
// of them alike; v0.0.38 (22.05's own plugin) keeps its own rules (dialect_v0038.h).
// Each was read from Slurm's source at the release tags (docs/slurm.md):
//
//   | rule                                     | 23.11.0-4 | 23.11.5+ | 24.05 | 24.11+ |
//   | GET jobs/state is bound                  | -         | yes      | yes   | yes    |
//   | DELETE job answers a `status[]` per job  | -         | -        | -     | yes    |
//   | submit needs a top-level `script`        | yes       | -        | -     | -      |
//
// Before 24.11 DELETE calls slurm_kill_job: its error goes to `errors[]` (2017 as 404, 2021 as
// 200 with a warning, the rest 500). Before 24.11 slurmrestd also answers an authentication
// error (1007) and a lost slurmctld with 500 rather than 511 and 502; outcome.h classifies by
// the error number, so no rule is needed for that.
// Values; thread-compatible.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tpslurm::slurm {

struct SlurmRelease {
  int major = 0;
  int minor = 0;
  int micro = 0;

  // "26.05.3" -> {26, 5, 3}; empty when the text is not a release.
  static std::optional<SlurmRelease> parse(std::string_view text);
  std::string to_string() const;  // "26.05.3"
  auto operator<=>(const SlurmRelease&) const = default;
};

enum class RefreshBy { sluid, job_id_check_sluid, job_id_check_tag };
enum class CancelBy { leader_sluid, job_id_after_sluid_check, job_id_after_tag_check };

struct IdPolicy {
  bool records_have_sluid = false;  // identify can record SLUIDs
  bool sluid_in_paths = false;      // GET/DELETE accept s<SLUID>
  RefreshBy refresh = RefreshBy::job_id_check_tag;
  CancelBy cancel = CancelBy::job_id_after_tag_check;
  bool degraded() const { return !sluid_in_paths; }
  // One line for doctor: "SLUID lifecycle (26.05.3, v0.0.45)" or why not.
  std::string describe() const;
};

// Whether job records of REST version `dialect` can carry a SLUID (v0.0.44 and later; the
// server must be 25.11 or later too).
bool records_carry_sluid(std::string_view dialect);

// `dialect` is the REST version in use ("v0.0.45", "v0.0.38").
IdPolicy id_policy(const SlurmRelease& release, std::string_view dialect);

struct ReleaseRules {
  bool jobs_state = true;                // GET jobs/state exists (23.11.5+); else jobs?update_time=
  bool cancel_status_list = true;        // DELETE's answer lists each job's `status` (24.11+)
  bool submit_top_level_script = false;  // a submit needs `script` beside `job` (23.11.0-23.11.4)
  bool operator==(const ReleaseRules&) const = default;
};

ReleaseRules release_rules(const SlurmRelease& release);

// How one task of a job array is cancelled alone (SlurmClient::cancel_array_task), by release:
//   22.05 (v0.0.38) and 24.11+    DELETE job/{M}_{t}: the id reaches slurmctld as written
//                                 (22.05: arrays-v0.0.38/04, 11; 24.11+: _handle_job_delete calls
//                                 slurm_kill_jobs with the id string);
//   23.11.7+ and 24.05            DELETE jobs with {"jobs": ["M_t"]}: there DELETE job/{M}_{t}
//                                 sends slurm_kill_job the numeric id alone with KILL_FULL_JOB and
//                                 kills the WHOLE array (openapi/slurmctld/jobs.c
//                                 _handle_job_delete at slurm-23-11-11-1, slurm-24-05-8-1);
//   23.11.0 to 23.11.6            none: DELETE jobs is not bound before 23.11.6 (slurm_kill_jobs
//                                 first appears in openapi/slurmctld/jobs.c at slurm-23-11-6-1)
//                                 and does not cancel a pending task in 23.11.6 ("Fix signaling job
//                                 arrays with slurm_kill_jobs", between 23.11.6 and 23.11.7).
enum class ArrayTaskCancel { task_path, kill_jobs, none };
ArrayTaskCancel array_task_cancel(const SlurmRelease& release);
std::string_view to_string(ArrayTaskCancel how);  // "DELETE job/{M}_{t}", "DELETE jobs", "none"

// The oldest release that serves `dialect` ("v0.0.40" -> 23.11.0): whose rules hold while an
// answer has not yet named the release, because they are the most careful ones.
SlurmRelease oldest_release_serving(std::string_view dialect);

}  // namespace tpslurm::slurm
