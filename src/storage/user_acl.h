// POSIX ACLs that give one job's files to its Unix user in per-user mode
// (model::FileAccess::per_user): the daemon's service account owns every file, the job's user
// gets what the file's group bits say through an entry naming it, and the owning group and
// others get nothing. The group bits of a file with such an ACL are its mask, so a later chmod
// (the seal's) narrows the user's entry with it.
//
// Directories the job writes (logs/, scratch/) also get a default ACL, inherited by what the job
// creates there: rwx for its owner, for the job's user and for the service account (so the seal
// and the cleanup can read and remove it), nothing for others. The umask does not apply below a
// directory with a default ACL; the create mode still narrows the mask.
//
// Paths are the daemon's own, created by it in directories no job can write (the ACL goes by
// path: Linux has no call that sets a default ACL by descriptor). Errors name the path; a
// filesystem without ACLs is permanent ("... does not support ACLs: mount it with acl ...").
// Thread-safe (libacl; no shared state).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "base/result.h"

namespace tpslurm::storage {

// `path`'s ACL becomes: owner and mask from its mode, `user` with the mask's permissions, the
// owning group and others nothing. Call it after the mode is set.
Status give_to_user(const std::string& path, uid_t user);

// give_to_user(), and the default ACL above for what is created in `dir`; `service` is the
// daemon's uid (geteuid()).
Status give_writable_to_user(const std::string& dir, uid_t user, uid_t service);

// The permissions (0-7) the ACL of `path` gives `user` by an entry naming it, before the mask;
// nullopt when no entry names it. For tests and `doctor`.
Result<std::optional<unsigned>> user_entry(const std::string& path, uid_t user);

// Whether `dir`'s filesystem keeps an ACL naming a user: a probe directory is made in `dir`,
// given to `user`, read back and removed. The error says what failed and how to fix it.
Status check_acl_support(const std::string& dir, uid_t user);

}  // namespace tpslurm::storage
