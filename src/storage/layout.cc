#include "storage/layout.h"

namespace tpslurm::storage {

std::string join_path(std::string_view root, std::string_view relative) {
  std::string out(root);
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  while (!relative.empty() && relative.front() == '/') relative.remove_prefix(1);
  if (relative.empty()) return out;
  if (out != "/") out += '/';
  out += relative;
  return out;
}

std::string job_dir(std::string_view storage_root, std::string_view job_id) {
  return join_path(join_path(storage_root, "slurm/jobs"), job_id);
}

std::string attempt_dir(std::string_view storage_root, std::string_view job_id, int attempt) {
  return join_path(job_dir(storage_root, job_id), "attempts/" + std::to_string(attempt));
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

}  // namespace tpslurm::storage
