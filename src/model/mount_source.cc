#include "model/mount_source.h"

#include "model/attempt_layout.h"
#include "model/detail/relative_path.h"

namespace tpslurm::model {
namespace {

// Both paths are normalised and relative: one holds the other when it is a whole-component
// prefix of it (or they are equal).
bool holds(std::string_view outer, std::string_view inner) {
  if (inner.substr(0, outer.size()) != outer) return false;
  return inner.size() == outer.size() || inner[outer.size()] == '/';
}

bool overlaps(std::string_view a, std::string_view b) { return holds(a, b) || holds(b, a); }

void add_artifacts(const Runtime& runtime, std::vector<std::string>& paths) {
  if (runtime.sqsh) paths.push_back(runtime.sqsh->path);
  if (runtime.sif) paths.push_back(runtime.sif->path);
}

}  // namespace

std::optional<std::string> mount_source_problem(std::string_view source, bool read_only,
                                                const std::vector<std::string>& image_paths) {
  if (auto why = detail::relative_path_problem(source)) return why;
  if (overlaps(source, kProgramDir)) {
    return "reaches " + std::string(kProgramDir) +
           "/ of the storage root, the program's own tree (attempt directories, credentials, other jobs); "
           "mount a directory outside it";
  }
  if (!read_only) {
    for (const auto& image : image_paths) {
      if (overlaps(source, image)) {
        return "holds the runtime image " + image + ", which a job may mount only read-only; set read_only: true";
      }
    }
  }
  return std::nullopt;
}

std::vector<std::string> image_paths(const RuntimeRegistry& runtimes) {
  std::vector<std::string> paths;
  for (const auto& [id, runtime] : runtimes.all()) add_artifacts(runtime, paths);
  return paths;
}

std::vector<std::string> image_paths(const Runtime& runtime) {
  std::vector<std::string> paths;
  add_artifacts(runtime, paths);
  return paths;
}

}  // namespace tpslurm::model
