// Whether the job user can use its attempts, and nobody else can (docs/architecture.md §7): the
// `doctor` check of the deployment's two users.
//
// The daemon runs as a service account (this process's user); jobs run as
// TUNEPLANE_SLURM_REST_USER. Without TUNEPLANE_STORAGE_GROUP the two must be one user. With it:
// the job user and the service account (unless root) must be members of the group, nobody else
// may be (every member can read every job's credential), and the program's tree on the storage
// root (<root>/slurm), where it exists, must have the group and be closed to others. Users are
// looked up through NSS as the compute nodes would see them; members by primary group are found
// for the two users named, not by enumerating every account. In per-user mode the check is of
// the storage root instead: that it keeps an ACL naming a user (a probe directory is made there
// and removed: the one write of these checks) and that the program's tree is closed to listing
// (storage/user_acl.h). Thread-safe.
#pragma once

#include <string>
#include <vector>

#include "model/settings.h"

namespace tpslurm::storage {

struct JobAccessCheck {
  bool ok = false;
  std::string detail;  // what was found
  std::string fix;     // what to do; empty when ok
};

JobAccessCheck check_job_access(const model::Settings& settings);

// Whether the job user cannot change a runtime image: the `doctor` check "images". Each node
// hashes the image and the container runtime then opens it again by its path, so a job user
// able to write the image, or any directory on its path from the storage root down (the root
// included), could replace it in between. Judged by each path's owner and mode bits (for a
// symbolic link, by those of what it leads to): the owner of a path can always change it, its
// group when group-writable and the job user is a member (NSS, as for check_job_access), and
// everyone when it is writable by others. A path that does not exist ends that image's walk.
// `image_paths` are relative to the storage root (model::image_paths). Reads only;
// thread-safe.
JobAccessCheck check_image_access(const model::Settings& settings, const std::vector<std::string>& image_paths);
// The same for each of `job_users` (per-user mode: every mapped Unix user); a problem's detail
// starts with the user's name when there are several.
JobAccessCheck check_image_access(const model::Settings& settings, const std::vector<std::string>& image_paths,
                                  const std::vector<std::string>& job_users);

}  // namespace tpslurm::storage
