#include "storage/storage_group.h"

#include <grp.h>

#include <cerrno>
#include <cstring>
#include <vector>

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

}  // namespace tpslurm::storage
