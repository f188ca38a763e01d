#include "storage/user_acl.h"

#include <acl/libacl.h>
#include <sys/acl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>

#include "base/file_system.h"
#include "base/uuid.h"

namespace tpslurm::storage {
namespace {

struct AclFree {
  void operator()(void* acl) const { ::acl_free(acl); }
};
using AclHandle = std::unique_ptr<std::remove_pointer_t<acl_t>, AclFree>;

char perm_char(unsigned bits, unsigned bit, char letter) { return (bits & bit) != 0 ? letter : '-'; }

std::string perms(unsigned bits) {
  return {perm_char(bits, 4, 'r'), perm_char(bits, 2, 'w'), perm_char(bits, 1, 'x')};
}

Error acl_error(std::string_view what, const std::string& path, int error_number) {
  if (error_number == ENOTSUP || error_number == EOPNOTSUPP) {
    return permanent(std::string(what) + " " + path +
                     ": the filesystem does not support ACLs; per-user mode needs them (mount it with ACLs: "
                     "ext4 and XFS keep them; NFS over NFSv3 with its ACL protocol, not NFSv4; Lustre with ACLs on its "
                     "MDT)");
  }
  return system_error(what, path, error_number);
}

Status set_acl(const std::string& path, acl_type_t type, const std::string& text) {
  AclHandle acl(::acl_from_text(text.c_str()));
  if (!acl) return permanent("ACL text \"" + text + "\" does not parse");
  if (::acl_set_file(path.c_str(), type, acl.get()) != 0) return acl_error("set the ACL of", path, errno);
  return ok_status();
}

Result<unsigned> mode_of(const std::string& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) return system_error("stat", path, errno);
  if (!S_ISDIR(info.st_mode) && !S_ISREG(info.st_mode)) return invalid_argument(path + " is not a file or directory");
  return static_cast<unsigned>(info.st_mode);
}

std::string named(uid_t user) { return std::to_string(user); }

}  // namespace

Status give_to_user(const std::string& path, uid_t user) {
  auto mode = mode_of(path);
  if (!mode.ok()) return mode.error();
  const unsigned mask = (*mode >> 3) & 7u;
  return set_acl(path, ACL_TYPE_ACCESS,
                 "u::" + perms(*mode >> 6) + ",u:" + named(user) + ":" + perms(mask) + ",g::---,m::" + perms(mask) +
                     ",o::---");
}

Status give_writable_to_user(const std::string& dir, uid_t user, uid_t service) {
  if (Status given = give_to_user(dir, user); !given.ok()) return given;
  std::string text = "u::rwx,u:" + named(user) + ":rwx,";
  if (service != user) text += "u:" + named(service) + ":rwx,";
  return set_acl(dir, ACL_TYPE_DEFAULT, text + "g::---,m::rwx,o::---");
}

Result<std::optional<unsigned>> user_entry(const std::string& path, uid_t user) {
  AclHandle acl(::acl_get_file(path.c_str(), ACL_TYPE_ACCESS));
  if (!acl) return acl_error("read the ACL of", path, errno);
  acl_entry_t entry = nullptr;
  for (int which = ACL_FIRST_ENTRY; ::acl_get_entry(acl.get(), which, &entry) == 1; which = ACL_NEXT_ENTRY) {
    acl_tag_t tag{};
    if (::acl_get_tag_type(entry, &tag) != 0 || tag != ACL_USER) continue;
    auto* qualifier = static_cast<uid_t*>(::acl_get_qualifier(entry));
    if (qualifier == nullptr) continue;
    const bool match = *qualifier == user;
    ::acl_free(qualifier);
    if (!match) continue;
    acl_permset_t set = nullptr;
    if (::acl_get_permset(entry, &set) != 0) return acl_error("read the ACL of", path, errno);
    return std::optional<unsigned>((::acl_get_perm(set, ACL_READ) == 1 ? 4u : 0u) |
                                   (::acl_get_perm(set, ACL_WRITE) == 1 ? 2u : 0u) |
                                   (::acl_get_perm(set, ACL_EXECUTE) == 1 ? 1u : 0u));
  }
  return std::optional<unsigned>();
}

Status check_acl_support(const std::string& dir, uid_t user) {
  const std::string probe = join_path(dir, ".acl-probe-" + new_uuid());
  if (::mkdir(probe.c_str(), 0700) != 0) return system_error("mkdir", probe, errno);
  // Its mode set exactly (mkdir's is narrowed by the umask: systemd's unit has 0077), so the
  // entry's --x survives the mask.
  Status result = ::chmod(probe.c_str(), 0710) == 0 ? give_to_user(probe, user) : system_error("chmod", probe, errno);
  if (result.ok()) {
    auto entry = user_entry(probe, user);
    if (!entry.ok()) {
      result = entry.error();
    } else if (*entry != std::optional<unsigned>(1u)) {
      result = permanent(probe + ": an ACL entry for uid " + named(user) +
                         " did not hold (read back other than set); the filesystem does not keep ACLs as written");
    }
  }
  ::rmdir(probe.c_str());
  return result;
}

}  // namespace tpslurm::storage
