#include "model/mount_source.h"

#include "model/attempt_layout.h"
#include "model/runtime_path.h"

namespace tpslurm::model {
namespace {

void add_artifacts(const Runtime& runtime, std::vector<std::string>& paths) {
  if (runtime.sqsh) paths.push_back(runtime.sqsh->path);
  if (runtime.sif) paths.push_back(runtime.sif->path);
}

}  // namespace

std::optional<std::string> mount_source_problem(std::string_view source, bool read_only,
                                                const std::vector<std::string>& image_paths) {
  if (auto why = runtime_path_problem(source, PathKind::storage)) return why;
  // The source is in normal form, so comparing it as written with the program's tree and the
  // images is comparing the paths.
  if (paths_overlap(source, kProgramDir)) {
    return "reaches " + std::string(kProgramDir) +
           "/ of the storage root, the program's own tree (attempt directories, credentials, other jobs); "
           "mount a directory outside it";
  }
  if (!read_only) {
    for (const auto& image : image_paths) {
      if (paths_overlap(source, image)) {
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
