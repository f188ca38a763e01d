#include "storage/storage_root.h"

#include <unistd.h>

#include <filesystem>

#include "storage/atomic_file.h"

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

Status probe_storage_root(const std::string& root) {
  if (root.empty()) return ok_status();
  if (Status there = check_storage_root(root); !there.ok()) return there;
  const std::string probe = root + "/slurm/.tuneplane-write-probe";
  Status written = write_file_atomically(probe, "probe\n", 0600, Overwrite::yes);
  ::unlink(probe.c_str());
  return written;
}

}  // namespace tpslurm::storage
