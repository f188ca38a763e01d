// The directory of a sweep's job array (render/array_job.h) on the shared filesystem:
//
//   <root>/slurm/sweeps/<sweep_id>/arrays/<n>/    the array's working directory
//     tasks/<t>    a link to the directory of the attempt task t runs, as the nodes see it:
//                  the task goes there and runs that attempt's job.sh, and Slurm writes the
//                  task's batch log there through it (--output .../tasks/%a/logs/batch.out)
//     job.sh       the array's script (the submit sends the same bytes), written last
//
// Only the daemon's service account writes here, before the array is submitted, and no job
// can: the job's user may pass and read (its runs' attempts are its own, per-user mode's ACL
// naming it; or the storage group), never write. So a link cannot be turned elsewhere by a
// job, and the script holds no request value.
//
// write_sweep_array() writes it once, completely, or not at all, as an attempt directory is
// (attempt_directory.h): the links and the tasks/ directory first, each directory fsynced, then
// job.sh atomically, which vouches for the rest. A directory whose job.sh is the same script,
// with every link as asked, is left alone (already_complete); a different job.sh is corrupt (a
// array directory is never rewritten); one without job.sh (a crash before it) is emptied and
// written again. verify_sweep_array() checks a written directory again before a later submit.
// Thread-compatible, as attempt directories are.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "model/attempt_layout.h"
#include "storage/attempt_directory.h"

namespace tpslurm::storage {

struct SweepArrayLayout {
  std::string script;
  std::vector<std::string> task_dirs;  // task t's attempt directory as the nodes see it
  std::string group;                   // TUNEPLANE_STORAGE_GROUP; empty = none
  std::string unix_user;               // per-user mode: the runs' Unix user (one for a sweep)

  model::FileAccess access() const {
    if (!unix_user.empty()) return model::FileAccess::per_user;
    return group.empty() ? model::FileAccess::owner_only : model::FileAccess::shared_group;
  }
};

// <storage_root>/slurm/sweeps/<sweep_id>/arrays/<number>
std::string sweep_array_dir(std::string_view storage_root, std::string_view sweep_id, int number);

// invalid_argument for a layout without tasks or with a relative task directory; corrupt for a
// complete directory holding something else; the system's error naming the path otherwise.
Result<WriteOutcome> write_sweep_array(const std::string& dir, const SweepArrayLayout& layout);

// corrupt naming what differs: job.sh missing or not the script, a link missing, changed or
// not a link, a task link beyond the layout's; not_found when the directory is not there.
Status verify_sweep_array(const std::string& dir, const SweepArrayLayout& layout);

}  // namespace tpslurm::storage
