// Where things live on the shared filesystem, under the storage root:
//
//   <root>/slurm/jobs/<job_id>/credentials/ingest_token    the job's credential (0400)
//   <root>/slurm/jobs/<job_id>/attempts/<n>/                one attempt's directory
//
// The daemon and the compute nodes may mount the same storage at different paths
// (TUNEPLANE_STORAGE_ROOT vs TUNEPLANE_SLURM_STORAGE_ROOT); to_cluster_path() translates a
// local path into the path the cluster sees. Pure string functions; no I/O.
#pragma once

#include <string>
#include <string_view>

#include "model/attempt_layout.h"
#include "model/settings.h"

namespace tpslurm::storage {

std::string job_dir(std::string_view storage_root, std::string_view job_id);
std::string attempt_dir(std::string_view storage_root, std::string_view job_id, int attempt);
// The directory an attempt's journal record names, or attempt_dir() when it names none yet.
std::string recorded_attempt_dir(std::string_view recorded, std::string_view storage_root, std::string_view job_id,
                                 int attempt);
std::string job_credential_path(std::string_view storage_root, std::string_view job_id);

// Attempt `number` of `job_id` with `submit_token`: its directory under the storage root (or
// `local_dir` when given), the same as the cluster sees it, and `credential_path`.
model::AttemptInputs attempt_inputs(const model::Settings& settings, std::string_view job_id, int number,
                                    std::string submit_token, std::string credential_path, std::string local_dir = {});

// `path` must lie under `storage_root`; returns it re-rooted at `cluster_root` (or unchanged
// when the roots are equal or cluster_root is empty).
std::string to_cluster_path(std::string_view path, std::string_view storage_root, std::string_view cluster_root);

}  // namespace tpslurm::storage
