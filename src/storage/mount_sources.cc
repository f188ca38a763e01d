#include "storage/mount_sources.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "base/file_system.h"
#include "model/mount_source.h"

namespace tpslurm::storage {
namespace {

// The real path, or the reason there is none.
Result<std::string> real_path(const std::string& path) {
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved) == nullptr) {
    return invalid_argument(errno == ENOENT ? std::string("does not exist") : std::strerror(errno));
  }
  return std::string(resolved);
}

// `path` relative to `root` (both real paths), or nullopt when it lies outside.
std::optional<std::string> relative_to(const std::string& root, const std::string& path) {
  if (path == root) return std::string{};
  const std::string prefix = root == "/" ? root : root + "/";
  if (path.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  return path.substr(prefix.size());
}

// Images as named and as they really are (an image may itself be reached through a link).
std::vector<std::string> all_image_paths(const std::string& root, const std::string& real_root,
                                         const std::vector<std::string>& image_paths) {
  std::vector<std::string> paths = image_paths;
  for (const auto& image : image_paths) {
    auto resolved = real_path(join_path(root, image));
    if (!resolved.ok()) continue;
    if (auto relative = relative_to(real_root, *resolved); relative && !relative->empty()) paths.push_back(*relative);
  }
  return paths;
}

}  // namespace

Result<std::vector<model::Mount>, model::Problems> resolve_mount_sources(const std::string& storage_root,
                                                                         const std::vector<model::Mount>& mounts,
                                                                         const std::vector<std::string>& image_paths) {
  model::Problems problems;
  auto real_root = real_path(storage_root);
  if (!real_root.ok()) {
    problems.add("TUNEPLANE_STORAGE_ROOT", model::quote_value(storage_root), real_root.error().message());
    return problems;
  }
  const std::vector<std::string> images = all_image_paths(storage_root, *real_root, image_paths);
  std::vector<model::Mount> resolved = mounts;
  for (std::size_t i = 0; i < mounts.size(); ++i) {
    const std::string field = "spec.mounts[" + std::to_string(i) + "].source";
    const std::string value = model::quote_value(mounts[i].source);
    auto real = real_path(join_path(storage_root, mounts[i].source));
    if (!real.ok()) {
      problems.add(field, value, real.error().message() + " under the storage root; create it before the job starts");
      continue;
    }
    const auto relative = relative_to(*real_root, *real);
    if (!relative) {
      problems.add(field, value, "leads outside the storage root (to " + *real + "); mount a path inside it");
      continue;
    }
    if (relative->empty()) {
      problems.add(field, value,
                   "leads to the storage root itself, which holds the program's own tree; mount a directory inside it");
      continue;
    }
    if (auto why = model::mount_source_problem(*relative, mounts[i].read_only, images)) {
      problems.add(field, value, (*relative == mounts[i].source ? "" : "leads to " + *relative + ", which ") + *why);
      continue;
    }
    resolved[i].source = *relative;
  }
  if (!problems.empty()) return problems;
  return resolved;
}

}  // namespace tpslurm::storage
