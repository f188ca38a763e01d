#include "storage/attempt_tag.h"

#include "storage/layout.h"

namespace tpslurm::storage {

model::JobTag attempt_tag(const model::Settings& s, std::string_view job_id, int attempt,
                          std::string_view submit_token) {
  const std::string local = attempt_dir(s.storage_root, job_id, attempt);
  return model::JobTag::make(s.instance, job_id, attempt, submit_token,
                             to_cluster_path(local, s.storage_root, s.slurm_storage_root));
}

}  // namespace tpslurm::storage
