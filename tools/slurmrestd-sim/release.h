// Release: which Slurm server the simulator impersonates, and what follows from it.
//
// The release decides the REST versions served (26.05: v0.0.42-45, 25.11: v0.0.41-44,
// 25.05: v0.0.40-43, 22.05: v0.0.36-38), the `meta` block, whether SLUIDs are accepted
// in paths (26.05 only) and how a Slurm error number becomes an HTTP status (22.05: 500
// except parse errors; 25.05: operations.c's short table; 25.11: http.c's table, e.g.
// 7000 (slurmdbd unreachable) -> 502; 26.05: that table, then 422 for slurmctld and
// slurmdbd refusals; everything else 500).
// Only the dialects v0.0.45, v0.0.44, v0.0.43 and v0.0.38 are implemented; other served
// versions answer 404 like an unknown URL. Pure functions, thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tpslurm::sim {

enum class Release { r26_05_3, r25_11_7, r25_05_0, r22_05_8 };
enum class Dialect { v0038, v0043, v0044, v0045 };

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

bool sluid_in_paths(Release release);
// 22.05-25.05 reject an invalid URL path character with 400, 25.11+ with 404.
int invalid_path_status(Release release);

// HTTP status slurmrestd answers for a request that failed with Slurm error `rc`.
int http_status_for_error(Release release, int rc);

// Slurm's own upper-case reason phrases ("UNAUTHORIZED").
std::string_view reason_phrase(int status);

}  // namespace tpslurm::sim
