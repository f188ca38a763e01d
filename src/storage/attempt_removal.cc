#include "storage/attempt_removal.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "base/file_system.h"
#include "base/printable.h"
#include "base/unique_fd.h"
#include "storage/attempt_tree.h"

namespace tpslurm::storage {
namespace {

// An entry swapped for another kind while it is removed, or refilled, is looked at this often.
constexpr int kTries = 3;
// A subtree moved up is named after its inode, unique among the live files of a filesystem;
// only a name the job chose the same way can be in the way, and then a suffix is tried.
constexpr int kNameTries = 8;

Error removal_error(const std::string& path, std::string_view why) {
  return transient("cannot remove " + path + ": " + std::string(why));
}

std::string entry_path(const std::string& parent, const char* name) { return join_path(parent, printable(name)); }

// One call's removal: its slice, and the top directory that deeper subtrees move up to.
struct Run {
  WorkSlice& slice;
  int top_fd;
  std::uint64_t entries = 0;

  void count() {
    ++entries;
    slice.add_entries();
  }
};

// Whether unlinkat(name, 0) failed with `error` because `name` is a directory (Linux says
// EISDIR; POSIX allows EPERM).
bool is_directory(int parent_fd, const char* name, int error) {
  if (error == EISDIR) return true;
  struct stat info {};
  return error == EPERM && ::fstatat(parent_fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(info.st_mode);
}

// A directory of the daemon's that sealing made read-only becomes writable again (by fd); a
// directory of the job's it cannot change is reported by the unlink that fails.
void make_writable(int dir_fd) {
  struct stat info {};
  if (::fstat(dir_fd, &info) == 0 && (info.st_mode & S_IRWXU) != S_IRWXU) {
    (void)::fchmod(dir_fd, (info.st_mode & 07777) | S_IRWXU);
  }
}

// Renames without replacing; where the filesystem has no RENAME_NOREPLACE (NFS), a rename to a
// name just seen free, which can at worst replace an empty directory of the job's.
int rename_fresh(int from_fd, const char* from, int to_fd, const std::string& to) {
  if (::renameat2(from_fd, from, to_fd, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS) return errno;
  struct stat info {};
  if (::fstatat(to_fd, to.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0) return EEXIST;
  return ::renameat(from_fd, from, to_fd, to.c_str()) == 0 ? 0 : errno;
}

// `name`, a directory too deep to descend into, moved to the top of the removal.
Result<bool> move_up(Run& run, int parent_fd, const char* name, const std::string& path) {
  struct stat info {};
  if (::fstatat(parent_fd, name, &info, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return true;
    return removal_error(path, std::strerror(errno));
  }
  const std::string base = ".tp-removing-" + std::to_string(info.st_ino);
  for (int tries = 0; tries < kNameTries; ++tries) {
    const int error = rename_fresh(parent_fd, name, run.top_fd, tries == 0 ? base : base + "-" + std::to_string(tries));
    if (error == 0) {
      run.count();
      return true;
    }
    if (error == ENOENT) return true;
    if (error != EEXIST && error != ENOTEMPTY) return removal_error(path, std::strerror(error));
  }
  return removal_error(path, "no free name to move it up to at the top of the removal");
}

Result<bool> empty_directory(Run& run, int dir_fd, const std::string& path, int depth);

// `name` beneath `parent_fd` and everything below it: true once it is gone, false when the
// slice was spent first.
Result<bool> remove_entry(Run& run, int parent_fd, const char* name, const std::string& path, int depth) {
  for (int tries = 0; tries < kTries; ++tries) {
    if (::unlinkat(parent_fd, name, 0) == 0) {
      run.count();
      return true;
    }
    if (errno == ENOENT) return true;
    if (!is_directory(parent_fd, name, errno)) return removal_error(path, std::strerror(errno));
    if (depth >= kRemovalDepth) return move_up(run, parent_fd, name, path);
    UniqueFd dir(::openat(parent_fd, name, kDirectoryFlags));
    if (dir.get() < 0) {
      if (errno == ENOENT) return true;
      if (errno == ELOOP || errno == ENOTDIR) continue;  // swapped for a link or a file
      return removal_error(path, std::strerror(errno));
    }
    auto emptied = empty_directory(run, dir.get(), path, depth + 1);
    if (!emptied.ok() || !*emptied) return emptied;
    if (::unlinkat(parent_fd, name, AT_REMOVEDIR) == 0) {
      run.count();
      return true;
    }
    if (errno == ENOENT) return true;
    if (errno != ENOTEMPTY && errno != EEXIST) return removal_error(path, std::strerror(errno));
  }
  return removal_error(path, "it keeps changing while it is removed");
}

// Everything inside the open directory `dir_fd`, read as it is listed: true once the listing
// is through, false when the slice was spent first.
Result<bool> empty_directory(Run& run, int dir_fd, const std::string& path, int depth) {
  make_writable(dir_fd);
  const int copy = ::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
  if (copy < 0) return removal_error(path, std::strerror(errno));
  std::unique_ptr<DIR, int (*)(DIR*)> stream(::fdopendir(copy), ::closedir);
  if (!stream) {
    const int error = errno;
    ::close(copy);
    return removal_error(path, std::strerror(error));
  }
  ::rewinddir(stream.get());
  errno = 0;
  while (const dirent* item = ::readdir(stream.get())) {
    const std::string_view name = item->d_name;
    if (name != "." && name != "..") {
      auto removed = remove_entry(run, dir_fd, item->d_name, entry_path(path, item->d_name), depth);
      if (!removed.ok() || !*removed) return removed;
      if (run.slice.spent()) return false;
    }
    errno = 0;
  }
  if (errno != 0) return removal_error(path, std::strerror(errno));
  return true;
}

// The top of a removal, `name` beneath `parent_fd`: subtrees too deep move up into it, so it
// is emptied again until it stays empty.
Result<Removal> remove_top(int parent_fd, const std::string& name, const std::string& path, WorkSlice& slice) {
  Removal removal;
  if (::unlinkat(parent_fd, name.c_str(), 0) == 0) {
    slice.add_entries();
    return Removal{true, true, 1};
  }
  if (errno == ENOENT) return Removal{true, false, 0};
  if (!is_directory(parent_fd, name.c_str(), errno)) return removal_error(path, std::strerror(errno));
  UniqueFd top(::openat(parent_fd, name.c_str(), kDirectoryFlags));
  if (top.get() < 0) {
    if (errno == ENOENT) return Removal{true, false, 0};
    return removal_error(path, std::strerror(errno));
  }
  removal.found = true;
  Run run{slice, top.get()};
  while (true) {
    const std::uint64_t before = run.entries;
    auto emptied = empty_directory(run, top.get(), path, 1);
    removal.entries = run.entries;
    if (!emptied.ok()) return emptied.error();
    if (!*emptied) return removal;
    if (::unlinkat(parent_fd, name.c_str(), AT_REMOVEDIR) == 0 || errno == ENOENT) {
      run.count();
      removal.entries = run.entries;
      removal.done = true;
      return removal;
    }
    if (errno != ENOTEMPTY && errno != EEXIST) return removal_error(path, std::strerror(errno));
    if (run.entries == before) return removal_error(path, "it keeps changing while it is removed");
    if (slice.spent()) return removal;
  }
}

}  // namespace

Result<Removal> remove_in_attempt(const std::string& attempt_dir, std::string_view relative, WorkSlice& slice) {
  if (Status checked = check_relative(relative, attempt_dir); !checked.ok()) return checked.error();
  const std::string path = join_path(attempt_dir, printable(relative));
  auto parent = open_parent(attempt_dir, relative);
  if (!parent.ok()) {
    // Nothing is below a missing directory; nothing is removed through a link.
    if (parent.error().kind() == ErrorKind::not_found) return Removal{true, false, 0};
    return removal_error(path, parent.error().message());
  }
  return remove_top(parent->fd.get(), last_component(relative), path, slice);
}

Result<Removal> remove_staging(const std::string& attempt_dir, WorkSlice& slice) {
  Removal staging{true, false, 0};
  if (attempt_dir.empty()) return staging;
  for (const char* sub : {"credentials", "scratch"}) {
    auto removed = remove_in_attempt(attempt_dir, sub, slice);
    if (!removed.ok()) return removed.error();
    staging.found = staging.found || removed->found;
    staging.entries += removed->entries;
    if (!removed->done) {
      staging.done = false;
      return staging;
    }
  }
  return staging;
}

Result<Removal> remove_attempt_directory(const std::string& attempt_dir, WorkSlice& slice) {
  if (last_component(attempt_dir).empty()) {
    return invalid_argument("attempt directory \"" + printable(attempt_dir) + "\" must not end with a slash");
  }
  const std::string parent_path = parent_directory(attempt_dir);
  UniqueFd parent(::open(parent_path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (parent.get() < 0) {
    if (errno == ENOENT) return Removal{true, false, 0};
    return removal_error(attempt_dir, std::strerror(errno));
  }
  return remove_top(parent.get(), last_component(attempt_dir), attempt_dir, slice);
}

}  // namespace tpslurm::storage
