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

}  // namespace tpslurm::storage
