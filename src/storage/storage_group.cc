#include "storage/storage_group.h"

#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "base/file_system.h"

namespace tpslurm::storage {

Result<StorageGroup> resolve_storage_group(const std::string& name) {
  if (name.empty()) return StorageGroup{};
  struct group entry {};
  struct group* found = nullptr;
  std::vector<char> buffer(16384);
  int error = ::getgrnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found);
  while (error == ERANGE && buffer.size() < (std::size_t{1} << 24)) {
    buffer.resize(buffer.size() * 4);
    error = ::getgrnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found);
  }
  if (error != 0)
    return transient("look up the group \"" + name + "\" (TUNEPLANE_STORAGE_GROUP): " + std::strerror(error));
  if (found == nullptr) {
    return invalid_argument("TUNEPLANE_STORAGE_GROUP \"" + name + "\" is not a group on this host");
  }
  return StorageGroup{entry.gr_gid};
}

Status set_group_and_mode(const std::string& path, unsigned mode, StorageGroup group) {
  // The group first: with the mode first, the old group could read for a moment.
  if (group && ::chown(path.c_str(), static_cast<uid_t>(-1), *group) != 0) return system_error("chgrp", path, errno);
  if (::chmod(path.c_str(), static_cast<mode_t>(mode)) != 0) return system_error("chmod", path, errno);
  return ok_status();
}

Status make_directories_in_group(const std::string& path, unsigned mode, StorageGroup group) {
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) {
    if (!S_ISDIR(info.st_mode)) return invalid_argument(path + " exists and is not a directory");
    return ok_status();
  }
  if (errno != ENOENT) return system_error("stat", path, errno);
  const std::string parent = parent_directory(path);
  if (parent != path) {
    if (Status made = make_directories_in_group(parent, mode, group); !made.ok()) return made;
  }
  // Created closed, opened to the group only once it has the group.
  if (::mkdir(path.c_str(), 0700) != 0) {
    if (errno == EEXIST) return ok_status();
    return system_error("mkdir", path, errno);
  }
  if (Status given = set_group_and_mode(path, mode, group); !given.ok()) return given;
  return fsync_directory(parent);
}

}  // namespace tpslurm::storage
