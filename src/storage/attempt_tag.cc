#include "storage/attempt_tag.h"

#include "storage/layout.h"

namespace tpslurm::storage {

model::JobTag attempt_tag(const model::Settings& s, std::string_view job_id, int attempt,
                          std::string_view submit_token) {
  const std::string local = attempt_dir(s.storage_root, job_id, attempt);
  return model::JobTag::make(s.instance, job_id, attempt, submit_token,
                             to_cluster_path(local, s.storage_root, s.slurm_storage_root));
}

model::JobTag journaled_tag(const model::Settings& settings, std::string_view job_id, int attempt,
                            std::string_view submit_token, std::string_view tag_name, std::string_view tag_workdir) {
  if (tag_name.empty() || tag_workdir.empty()) return attempt_tag(settings, job_id, attempt, submit_token);
  return {std::string(tag_name), model::tag_comment(submit_token), std::string(tag_workdir)};
}

}  // namespace tpslurm::storage
