#include "storage/granted_access.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/file_system.h"
#include "storage/unix_user.h"
#include "storage/user_acl.h"

namespace tpslurm::storage {

Status GrantedAccess::give(const std::string& path, bool writable) const {
  if (!user) return ok_status();
  return writable ? give_writable_to_user(path, *user, ::geteuid()) : give_to_user(path, *user);
}

Result<GrantedAccess> granted_access(model::FileAccess access, const std::string& group,
                                     const std::string& unix_user) {
  const model::AttemptModes modes = model::attempt_modes(access);
  if (access == model::FileAccess::per_user) {
    const auto user = find_unix_user(unix_user);
    if (!user) return invalid_argument("the job's Unix user \"" + unix_user + "\" does not exist on this host");
    return GrantedAccess{modes, std::nullopt, user->uid};
  }
  auto resolved = resolve_storage_group(group);
  if (!resolved.ok()) return resolved.error();
  return GrantedAccess{modes, *resolved, std::nullopt};
}

Status make_directory(const std::string& path, unsigned mode, StorageGroup group) {
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) return system_error("mkdir", path, errno);
  // mkdir's mode is filtered by the umask; the modes are part of what the daemon promises.
  return set_group_and_mode(path, static_cast<mode_t>(mode), group);
}

}  // namespace tpslurm::storage
