// The one way the daemon touches files beneath an attempt directory: opening, reading,
// listing, testing and removing them, safe against the job that ran there.
//
// The job runs as another user and may write anything into its logs/ and scratch/: links to
// the daemon's files or to anywhere on the host, FIFOs, sockets, deep trees, and it may swap
// one for another while the daemon looks. The attempt directory itself is the daemon's own (its
// path is journaled) and is opened as named; nothing below it is trusted. So:
//   - a path relative to the attempt directory is resolved beneath the directory's fd with
//     openat2(2) and RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS. Where the
//     kernel lacks openat2 (ENOSYS), and to name the component that was refused, it is walked
//     one component at a time with openat(O_NOFOLLOW | O_DIRECTORY). No symbolic link is ever
//     followed, not even one pointing back inside.
//   - the last component is opened O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC and fstat-ed: anything
//     but a regular file (or a directory, where one is expected) is refused before a byte is
//     read, so a FIFO or a device never blocks a thread.
//   - directories are listed by fd (fdopendir of a dup) and modes change by fd (fchmod),
//     never by path. Removal unlinks links and other non-directories without following them
//     and recurses only into real directories opened O_NOFOLLOW | O_DIRECTORY, making a
//     directory of the daemon's writable (by fd) before removing from it.
//   - reads are bounded by the caller's limit.
//
// Relative paths must be non-empty, not absolute, and free of empty, "." and ".." components.
//
// Errors: not_found when a component does not exist; invalid_argument, naming the path and
// what it is, when a component is a link or of the wrong kind ("<dir>/logs/exit.json is a
// FIFO, not a regular file: ignored"), for a relative path of the wrong form, for a file larger
// than the limit and for a tree deeper than kMaxRemovalDepth; other failures as
// system_error() (base/file_system.h) makes them. Removal errors are transient, prefixed
// "cannot remove <path>: ".
//
// Thread-safe: no shared state; each call opens its own descriptors and closes them.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/unique_fd.h"

namespace tpslurm::storage {

// Directories nested deeper than this below the removed one are not removed (each level holds
// a descriptor while its entries go): the removal fails and says so.
inline constexpr int kMaxRemovalDepth = 256;

// What a stat mode says a name is: "a regular file", "a directory", "a symbolic link",
// "a FIFO", "a socket", "a character device", "a block device".
std::string_view kind_of(mode_t mode);

enum class Expect { file, directory };

// An open file or directory and what fstat said of it.
struct OpenEntry {
  UniqueFd fd;
  struct stat info {};
  std::string path;  // for messages: the attempt directory joined with the relative path
};

// The attempt directory itself, opened as named (O_DIRECTORY).
Result<UniqueFd> open_attempt_directory(const std::string& attempt_dir);

// `relative` opened read-only beneath `dir_fd`, which is the directory `dir_path` names (for
// messages); refused unless it is what `expect` says.
Result<OpenEntry> open_beneath(int dir_fd, const std::string& dir_path, std::string_view relative, Expect expect);

// The same, beneath the attempt directory.
Result<OpenEntry> open_in_attempt(const std::string& attempt_dir, std::string_view relative, Expect expect);

// The whole regular file attempt_dir/relative; refused when larger than `max_bytes`.
Result<std::string> read_attempt_file(const std::string& attempt_dir, std::string_view relative, std::size_t max_bytes);

// Whether attempt_dir/relative names anything at all (a link or a FIFO counts, and is not
// followed); false also when a directory on the way is missing, a link or not a directory.
Result<bool> exists_in_attempt(const std::string& attempt_dir, std::string_view relative);

struct DirectoryEntry {
  std::string name;
  mode_t mode = 0;  // as fstatat(AT_SYMLINK_NOFOLLOW) saw it
};

// The entries of the open directory `dir_fd` (named `dir_path` in messages), by name; "." and
// ".." left out, as are names that vanish while it is read.
Result<std::vector<DirectoryEntry>> list_directory(int dir_fd, const std::string& dir_path);

// Removes attempt_dir/relative and everything below it; OK when it does not exist. A link is
// removed, never what it points to.
Status remove_in_attempt(const std::string& attempt_dir, std::string_view relative);

// The cleanup's staging step: the attempt's credentials/ and scratch/ removed (each as
// remove_in_attempt does); OK when they are gone already or `attempt_dir` is empty.
Status remove_staging(const std::string& attempt_dir);

// Removes the attempt directory and everything below it. False when there was none.
Result<bool> remove_attempt_directory(const std::string& attempt_dir);

}  // namespace tpslurm::storage
