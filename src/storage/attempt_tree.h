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
//     never by path. Removal is attempt_removal.h's, on the same rules.
//   - reads are bounded by the caller's limit, and so are listings: a directory of a million
//     entries costs a listing no more than the entries it asked for.
//   - a name the job chose reaches a message only through printable() (base/printable.h): a
//     name of any bytes cannot break a log line, a journal event or a JSON answer.
//
// Relative paths must be non-empty, not absolute, and free of empty, "." and ".." components.
//
// Errors: not_found when a component does not exist; invalid_argument, naming the path and
// what it is, when a component is a link or of the wrong kind ("<dir>/logs/exit.json is a
// FIFO, not a regular file: ignored"), for a relative path of the wrong form, for a file larger
// than the limit; other failures as system_error() (base/file_system.h) makes them.
//
// Thread-safe: no shared state; each call opens its own descriptors and closes them.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/unique_fd.h"

namespace tpslurm::storage {

// How a directory below an attempt directory is opened: never through a link, never blocking.
inline constexpr int kDirectoryFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;

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

struct Listing {
  std::vector<DirectoryEntry> entries;  // by name
  bool more = false;                    // the directory has entries beyond them, not read
};

// At most `max_entries` entries of the open directory `dir_fd` (named `dir_path` in messages):
// the first ones the filesystem lists, then sorted by name; "." and ".." left out, as are
// names that vanish while it is read.
Result<Listing> list_directory(int dir_fd, const std::string& dir_path, std::size_t max_entries);

// The directory holding the last component of `relative` (checked), opened beneath the attempt
// directory: the attempt directory itself for a single component. Its path names it in messages.
Result<OpenEntry> open_parent(const std::string& attempt_dir, std::string_view relative);

// The last component of `relative`.
std::string last_component(std::string_view relative);

// `relative` checked as every function here checks it (invalid_argument, naming `dir_path`).
Status check_relative(std::string_view relative, const std::string& dir_path);

}  // namespace tpslurm::storage
