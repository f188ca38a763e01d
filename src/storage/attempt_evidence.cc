#include "storage/attempt_evidence.h"

#include "model/attempt_layout.h"
#include "storage/attempt_tree.h"

namespace tpslurm::storage {

Result<std::string> read_exit_evidence(const std::string& attempt_dir) {
  return read_attempt_file(attempt_dir, model::kExitEvidenceFile, kExitEvidenceMaxBytes);
}

Result<std::string> read_job_evidence(const std::string& attempt_dir) {
  return read_attempt_file(attempt_dir, model::kJobEvidenceFile, kJobEvidenceMaxBytes);
}

Result<bool> attempt_started(const std::string& attempt_dir) {
  auto logs = open_in_attempt(attempt_dir, "logs", Expect::directory);
  if (!logs.ok()) {
    if (logs.error().kind() == ErrorKind::not_found) return false;
    if (logs.error().kind() == ErrorKind::invalid_argument) return true;  // a link or a file: not ours
    return logs.error();
  }
  auto entries = list_directory(logs->fd.get(), logs->path);
  if (!entries.ok()) return entries.error();
  return !entries->empty();
}

}  // namespace tpslurm::storage
