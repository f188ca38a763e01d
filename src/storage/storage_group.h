// The group the deployment's two users share on the storage root (TUNEPLANE_STORAGE_GROUP,
// ARCHITECTURE.md §7): the daemon's service account creates every directory and file of the
// program's tree with it, so the job user (a member) can read its attempt and write its logs/
// and scratch/, and nobody outside the group can read anything.
//
// resolve_storage_group("") is "no group": the daemon and the jobs are one user and
// everything is the owner's alone. make_directories_in_group() creates a directory and every
// missing parent, each new one with exactly `mode` (the umask does not apply) and the group;
// directories that already exist are left as they are (doctor checks the tree's top).
// Thread-safe (getgrnam_r; no shared state).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "base/result.h"

namespace tpslurm::storage {

using StorageGroup = std::optional<gid_t>;

Result<StorageGroup> resolve_storage_group(const std::string& name);

Status make_directories_in_group(const std::string& path, unsigned mode, StorageGroup group);

// Gives an existing path this process owns the group (if any), then the mode.
Status set_group_and_mode(const std::string& path, unsigned mode, StorageGroup group);

}  // namespace tpslurm::storage
