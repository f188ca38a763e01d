// Mount sources as they really are when an attempt is prepared: a source inside the storage
// root may be a symlink (or pass through one) that leads anywhere, so its text alone proves
// nothing.
//
// resolve_mount_sources() resolves every symlink of each source (realpath(3)) and gives back
// the mounts with their sources rewritten to the real path relative to the storage root's real
// path, which is what the attempt then binds. Each resolved source is judged again by
// model::mount_source_problem(), against the image paths as given and as resolved, so a link
// into slurm/ or onto an image is refused like the path itself. A source that does not exist,
// or that leads outside the storage root, is refused. Every problem names the mount
// (spec.mounts[i].source), the value, where it leads and the fix. Reads the filesystem only;
// thread-safe.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "model/launch_request.h"
#include "model/problems.h"

namespace tpslurm::storage {

Result<std::vector<model::Mount>, model::Problems> resolve_mount_sources(const std::string& storage_root,
                                                                         const std::vector<model::Mount>& mounts,
                                                                         const std::vector<std::string>& image_paths);

}  // namespace tpslurm::storage
