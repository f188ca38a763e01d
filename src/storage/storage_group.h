// The group the deployment's two users share on the storage root (TUNEPLANE_STORAGE_GROUP,
// docs/architecture.md §7): the daemon's service account creates every directory and file of the
// program's tree with it, so the job user (a member) can read its attempt and write its logs/
// and scratch/, and nobody outside the group can read anything.
//
// resolve_storage_group("") is "no group": the daemon and the jobs are one user and
// everything is the owner's alone. Files and directories get the group through
// make_directories() and set_group_and_mode() (base/file_system.h) and write_file_atomically().
// Thread-safe (getgrnam_r; no shared state).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "base/result.h"

namespace tpslurm::storage {

using StorageGroup = std::optional<gid_t>;

Result<StorageGroup> resolve_storage_group(const std::string& name);

}  // namespace tpslurm::storage
