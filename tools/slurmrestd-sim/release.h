// Release: which Slurm server the simulator impersonates, and what follows from it.
//
// | release  | served      | implemented     | Slurm error -> HTTP                                   |
// |----------|-------------|-----------------|-------------------------------------------------------|
// | 26.05.3  | v0.0.42-45  | 42, 43, 44, 45  | http.c's table, then 422 for slurmctld/dbd refusals   |
// | 25.11.7  | v0.0.41-44  | 41, 42, 43, 44  | http.c's table (7000 -> 502, 1007 -> 511, ...)        |
// | 25.05.0  | v0.0.40-43  | 40, 41, 42, 43  | operations.c: 9000 422, 9001/2 400, 2017 404, comms   |
// |          |             |                 | 502, 5004 504, 1007 511                               |
// | 24.11.7  | v0.0.40-42  | 40, 41, 42      | as 25.05                                              |
// | 24.05.8  | v0.0.39-41  | 40, 41          | operations.c: 9000 422, 9001/2 400, 2017 404, else 500|
// | 23.11.11 | v0.0.38-40  | 38, 40          | as 24.05; jobs/state bound                            |
// | 23.11.4  | v0.0.38-40  | 38, 40          | as 24.05; no jobs/state, submit needs a top-level     |
// |          |             |                 | `script`                                              |
// | 22.05.8  | v0.0.36-38  | 38              | 9000-9002 -> 400, else 500                            |
// Besides: the `meta` block, whether SLUIDs are accepted in paths (26.05 only), the path
// character rule. A served version that is not implemented answers 404 like an unknown
// URL. Pure functions, thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tpslurm::sim {

enum class Release { r26_05_3, r25_11_7, r25_05_0, r24_11_7, r24_05_8, r23_11_11, r23_11_4, r22_05_8 };
enum class Dialect { v0038, v0040, v0041, v0042, v0043, v0044, v0045 };

std::optional<Release> parse_release(std::string_view text);
std::string_view release_name(Release release);  // "26.05.3"
int release_major(Release release);              // 26
int release_minor(Release release);              // 5
int release_micro(Release release);              // 3

// The minor REST version numbers served: [first, last] (e.g. 42..45).
int first_served_version(Release release);
int last_served_version(Release release);

enum class VersionSupport { implemented, served_not_implemented, not_served };
// `segment` is the URL segment ("v0.0.45").
VersionSupport version_support(Release release, std::string_view segment, Dialect* dialect);

std::string_view dialect_name(Dialect dialect);  // "v0.0.45"
bool is_v4x(Dialect dialect);
// The minor REST version: 38, 40 ... 45.
int dialect_number(Dialect dialect);

// 23.11.x (both), 24.05 and 24.11: the releases whose REST layer predates 25.05.
bool is_23_11(Release release);
// 23.11.5 and later bind GET /slurm/vX/jobs/state (23.11.0-23.11.4 do not).
bool binds_jobs_state(Release release);
// 23.11.0-23.11.4's _job_post() wants a top-level "script" even when job.script is set.
bool submit_needs_top_level_script(Release release);
// 24.11 and later signal through slurm_kill_jobs() (REQUEST_KILL_JOBS); before, DELETE
// job/{id} calls slurm_kill_job() and reports in errors[]/warnings[] only.
bool kill_jobs_rpc(Release release);
// DELETE /slurm/vX/jobs exists from 23.11.6 (of the simulated releases: all but 23.11.4 and 22.05).
bool kill_jobs_endpoint(Release release);
// Before 24.05 every slurmctld call also opens a slurmdbd connection (when accounting
// is configured): a token slurmdbd refuses fails the call with 7000 before its handler.
bool slurmctld_calls_open_dbd(Release release);

bool sluid_in_paths(Release release);
// 22.05-25.05 reject an invalid URL path character with 400, 25.11+ with 404.
int invalid_path_status(Release release);

// HTTP status slurmrestd answers for a request that failed with Slurm error `rc`.
int http_status_for_error(Release release, int rc);

// Slurm's own upper-case reason phrases ("UNAUTHORIZED").
std::string_view reason_phrase(int status);

}  // namespace tpslurm::sim
