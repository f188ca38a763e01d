// Which parts of the storage root a job may mount (spec.mounts[].source). The validator, the
// renderer and storage (again, once symlinks are resolved, when an attempt is prepared) all
// ask this one function, so a source is judged the same everywhere:
//  - a path relative to the storage root that obeys the container runtimes' path rule
//    (model/runtime_path.h: [A-Za-z0-9._/-] only, in normal form, no "..");
//  - never the program's own tree (kProgramDir: every job's attempts and credentials), nor a
//    directory that holds it (the storage root itself);
//  - a runtime image, or a directory holding one, only with read_only: a job must not be able
//    to change an image another job runs.
// Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/runtime_registry.h"

namespace tpslurm::model {

// Why the source may not be mounted (the fix included), or nullopt.
std::optional<std::string> mount_source_problem(std::string_view source, bool read_only,
                                                const std::vector<std::string>& image_paths);

// Every artifact path of the registry (relative to the storage root).
std::vector<std::string> image_paths(const RuntimeRegistry& runtimes);
std::vector<std::string> image_paths(const Runtime& runtime);

}  // namespace tpslurm::model
