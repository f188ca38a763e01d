#include "storage/storage_root.h"

#include <filesystem>

namespace tpslurm::storage {

Status check_storage_root(const std::string& root) {
  if (root.empty()) return ok_status();
  std::error_code error;
  if (!std::filesystem::is_directory(root, error)) {
    return transient("the storage root " + root + " is not there" + (error ? " (" + error.message() + ")" : "") +
                     ": is the shared filesystem mounted? attempts wait until it is back");
  }
  if (std::filesystem::is_empty(root, error) || error) {
    return transient("the storage root " + root + " is empty" + (error ? " (" + error.message() + ")" : "") +
                     ": is the shared filesystem mounted? attempts wait until it is back");
  }
  return ok_status();
}

}  // namespace tpslurm::storage
