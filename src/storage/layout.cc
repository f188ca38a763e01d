#include "storage/layout.h"

#include "base/file_system.h"
#include "model/attempt_layout.h"

namespace tpslurm::storage {

std::string job_dir(std::string_view storage_root, std::string_view job_id) {
  return join_path(join_path(join_path(storage_root, model::kProgramDir), "jobs"), job_id);
}

std::string attempt_dir(std::string_view storage_root, std::string_view job_id, int attempt) {
  return join_path(job_dir(storage_root, job_id), "attempts/" + std::to_string(attempt));
}

std::string recorded_attempt_dir(std::string_view recorded, std::string_view storage_root, std::string_view job_id,
                                 int attempt) {
  return recorded.empty() ? attempt_dir(storage_root, job_id, attempt) : std::string(recorded);
}

std::string job_credential_path(std::string_view storage_root, std::string_view job_id) {
  return join_path(job_dir(storage_root, job_id), "credentials/ingest_token");
}

std::string to_cluster_path(std::string_view path, std::string_view storage_root, std::string_view cluster_root) {
  if (cluster_root.empty() || cluster_root == storage_root) return std::string(path);
  std::string_view root = storage_root;
  while (root.size() > 1 && root.back() == '/') root.remove_suffix(1);
  if (path.substr(0, root.size()) != root) return std::string(path);
  std::string_view rest = path.substr(root.size());
  if (!rest.empty() && rest.front() != '/') return std::string(path);
  return join_path(cluster_root, rest);
}

model::AttemptInputs attempt_inputs(const model::Settings& settings, std::string_view job_id, int number,
                                    std::string submit_token, std::string credential_path, std::string local_dir) {
  model::AttemptInputs inputs;
  inputs.attempt = number;
  inputs.submit_token = std::move(submit_token);
  inputs.local_attempt_dir =
      local_dir.empty() ? attempt_dir(settings.storage_root, job_id, number) : std::move(local_dir);
  inputs.cluster_attempt_dir =
      to_cluster_path(inputs.local_attempt_dir, settings.storage_root, settings.slurm_storage_root);
  inputs.job_credential_path = std::move(credential_path);
  return inputs;
}

}  // namespace tpslurm::storage
