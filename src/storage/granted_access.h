// Who may use what the daemon writes for a job besides its service account (model::FileAccess):
// the modes, the storage group, and in per-user mode the job's Unix user, whom an ACL entry on
// each name gives the file's group bits (user_acl.h). Attempt directories and a sweep array's
// directory are written with it.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "base/result.h"
#include "model/attempt_layout.h"
#include "storage/storage_group.h"

namespace tpslurm::storage {

struct GrantedAccess {
  model::AttemptModes modes;
  StorageGroup group;
  std::optional<uid_t> user;  // per-user mode: the job's Unix user

  // Per-user mode: `path` given to the job's user to read (and pass), or, `writable`, to write
  // with the default ACL that keeps what it makes there the service account's too. Otherwise
  // nothing: the mode and the group say it all.
  Status give(const std::string& path, bool writable) const;
};

// `access` as an attempt layout's access() says it; `group` is TUNEPLANE_STORAGE_GROUP and
// `unix_user` the job's user (per-user mode). invalid_argument when that user is not on this
// host; the storage group's own error when it cannot be resolved.
Result<GrantedAccess> granted_access(model::FileAccess access, const std::string& group, const std::string& unix_user);

// mkdir `path` (an existing directory is kept), then its group and its exact mode, whatever
// the umask.
Status make_directory(const std::string& path, unsigned mode, StorageGroup group);

}  // namespace tpslurm::storage
