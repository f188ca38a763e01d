#include "storage/sweep_array.h"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <optional>

#include "base/crash_point.h"
#include "base/file_system.h"
#include "storage/atomic_file.h"
#include "storage/attempt_tree.h"
#include "storage/granted_access.h"

namespace tpslurm::storage {
namespace {

constexpr std::string_view kScript = "job.sh";
constexpr std::string_view kTasks = "tasks";
constexpr std::size_t kMaxScriptBytes = std::size_t{4} << 20;

// `path`, made by the daemon, with its group and mode, given to the runs' user to pass or read.
Status settle(const std::string& path, const GrantedAccess& access, unsigned mode) {
  if (Status made = make_directory(path, mode, access.group); !made.ok()) return made;
  return access.give(path, false);
}

// sweeps/<sweep_id>/arrays above the array: in per-user mode the program's tree passable for
// every user and these three for the runs' user alone, as a job's directories are.
Status make_parents(const std::string& dir, const GrantedAccess& access) {
  const std::string arrays = parent_directory(dir);
  const std::string sweep = parent_directory(arrays);
  const std::string sweeps = parent_directory(sweep);
  if (!access.user) return make_directories(arrays, access.modes.directory, access.group);
  if (Status made = make_directories(parent_directory(sweeps), access.modes.tree); !made.ok()) return made;
  for (const std::string& path : {sweeps, sweep, arrays}) {
    if (Status made = settle(path, access, access.modes.job); !made.ok()) return made;
    if (Status synced = fsync_directory(parent_directory(path)); !synced.ok()) return synced;
  }
  return ok_status();
}

std::string task_link(const std::string& dir, std::size_t task) {
  return join_path(join_path(dir, kTasks), std::to_string(task));
}

Status write_fresh(const std::string& dir, const SweepArrayLayout& layout, const GrantedAccess& access) {
  if (Status made = make_parents(dir, access); !made.ok()) return made;
  const std::string tasks = join_path(dir, kTasks);
  for (const std::string& path : {dir, tasks}) {
    if (Status made = settle(path, access, access.modes.directory); !made.ok()) return made;
  }
  for (std::size_t t = 0; t < layout.task_dirs.size(); ++t) {
    const std::string link = task_link(dir, t);
    if (::symlink(layout.task_dirs[t].c_str(), link.c_str()) != 0) return system_error("symlink", link, errno);
  }
  for (const std::string& path : {tasks, dir, parent_directory(dir)}) {
    if (Status synced = fsync_directory(path); !synced.ok()) return synced;
  }
  crash_point("sweep_array.before_script");
  const std::string script = join_path(dir, kScript);
  Status written = write_file_atomically(script, layout.script, static_cast<mode_t>(access.modes.file), Overwrite::no,
                                         access.group);
  if (!written.ok()) return written;
  return access.give(script, false);
}

// What a crash before job.sh (the voucher) left: the links, tasks/ and nothing else.
Status discard_unvouched(const std::string& dir) {
  const std::string tasks = join_path(dir, kTasks);
  for (std::size_t t = 0;; ++t) {
    const std::string link = task_link(dir, t);
    if (::unlink(link.c_str()) != 0) {
      if (errno == ENOENT) break;
      return system_error("unlink", link, errno);
    }
  }
  if (::rmdir(tasks.c_str()) != 0 && errno != ENOENT) {
    return system_error("rmdir", tasks, errno).with_context("discard the incomplete array directory");
  }
  return fsync_directory(dir);
}

Status check_links(const std::string& dir, const SweepArrayLayout& layout) {
  std::array<char, 4096> target{};
  for (std::size_t t = 0;; ++t) {
    const std::string link = task_link(dir, t);
    const ssize_t length = ::readlink(link.c_str(), target.data(), target.size());
    if (length < 0 && errno == ENOENT && t >= layout.task_dirs.size()) return ok_status();
    if (t >= layout.task_dirs.size()) {
      return corrupt("array " + dir + ": " + std::string(kTasks) + "/" + std::to_string(t) + " is beyond its " +
                     std::to_string(layout.task_dirs.size()) + " tasks");
    }
    if (length < 0) return corrupt("array " + dir + ": " + link + " is not a link (" + std::strerror(errno) + ")");
    if (std::string_view(target.data(), static_cast<std::size_t>(length)) != layout.task_dirs[t]) {
      return corrupt("array " + dir + ": " + link + " leads elsewhere than task " + std::to_string(t) + "'s attempt");
    }
  }
}

}  // namespace

std::string sweep_array_dir(std::string_view storage_root, std::string_view sweep_id, int number) {
  return join_path(join_path(join_path(join_path(storage_root, model::kProgramDir), "sweeps"), sweep_id),
                   "arrays/" + std::to_string(number));
}

Status verify_sweep_array(const std::string& dir, const SweepArrayLayout& layout) {
  auto script = read_attempt_file(dir, kScript, kMaxScriptBytes);
  if (!script.ok()) {
    if (script.error().kind() == ErrorKind::not_found) return not_found("array " + dir + " has no " + std::string(kScript));
    return script.error();
  }
  if (*script != layout.script) return corrupt("array " + dir + ": " + std::string(kScript) + " is not the array's script");
  return check_links(dir, layout);
}

Result<WriteOutcome> write_sweep_array(const std::string& dir, const SweepArrayLayout& layout) {
  if (layout.task_dirs.empty()) return invalid_argument("a job array needs at least one task");
  for (const std::string& task_dir : layout.task_dirs) {
    if (!task_dir.starts_with('/')) return invalid_argument("task directory " + task_dir + " is not absolute");
  }
  auto access = granted_access(layout.access(), layout.group, layout.unix_user);
  if (!access.ok()) return access.error();
  WriteOutcome outcome = WriteOutcome::written;
  auto present = exists_in_attempt(dir, kScript);
  if (present.ok() && *present) {
    if (Status same = verify_sweep_array(dir, layout); !same.ok()) {
      return same.error().with_context("a complete array directory is never rewritten");
    }
    return WriteOutcome::already_complete;
  }
  struct stat info {};
  if (::lstat(dir.c_str(), &info) == 0) {
    if (Status discarded = discard_unvouched(dir); !discarded.ok()) return discarded.error();
    outcome = WriteOutcome::rewritten;
  }
  if (Status written = write_fresh(dir, layout, *access); !written.ok()) return written.error();
  return outcome;
}

}  // namespace tpslurm::storage
