// Small file-system helpers every layer needs: reading a whole (small) file, paths, creating
// directories durably, and the one way errno becomes an Error ("open /x/y: Permission
// denied", with a kind that says whether retrying can help). Thread-safe.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace tpslurm {

// The whole file; refuses files larger than `max_bytes` (invalid_argument).
Result<std::string> read_file(const std::string& path, std::size_t max_bytes);
// The same from a descriptor open for reading (left open); `path` names it in errors.
Result<std::string> read_open_file(int fd, const std::string& path, std::size_t max_bytes);

// When a write is made durable: `now`, by its own fsync; `later`, by the caller, who flushes the
// whole filesystem (syncfs) once for a batch of writes before anything relies on them.
enum class Flush { now, later };

// Creates `path` and its missing parents, fsyncing each parent it changed (Flush::now), so a
// directory that exists after a crash is recorded in its parent. Each directory it creates gets
// exactly `mode` (the umask does not apply) and, when given, `group`; directories that exist
// stay as they are.
Status make_directories(const std::string& path, mode_t mode, std::optional<gid_t> group = std::nullopt,
                        Flush flush = Flush::now);

// syncfs(2) of the filesystem that holds `path`: every write made to it before is durable.
Status flush_filesystem(const std::string& path);

// Gives `path` the group (when given), then the mode: in that order, so no other group ever
// gets the mode's group bits.
Status set_group_and_mode(const std::string& path, mode_t mode, std::optional<gid_t> group);

// fsync(2) of a directory, so the names created in it survive a crash.
Status fsync_directory(const std::string& dir);

// "/a/b/c" -> "/a/b"; "/a" -> "/"; "a" -> ".".
std::string parent_directory(const std::string& path);

// A mode's permission bits as chmod takes them: "0750".
std::string mode_text(mode_t mode);
// root + "/" + relative, without doubling slashes.
std::string join_path(std::string_view root, std::string_view relative);

Error system_error(std::string_view what, const std::string& path, int error_number);

}  // namespace tpslurm
