// Small file-system helpers every layer needs: reading a whole (small) file, paths, creating
// directories durably, and the one way errno becomes an Error ("open /x/y: Permission
// denied", with a kind that says whether retrying can help). Thread-safe.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "base/result.h"

namespace tpslurm {

// The whole file; refuses files larger than `max_bytes` (invalid_argument).
Result<std::string> read_file(const std::string& path, std::size_t max_bytes);

// Creates `path` and its missing parents with `mode`, fsyncing each parent it changed, so a
// directory that exists after a crash is recorded in its parent.
Status make_directories(const std::string& path, mode_t mode);

// fsync(2) of a directory, so the names created in it survive a crash.
Status fsync_directory(const std::string& dir);

// "/a/b/c" -> "/a/b"; "/a" -> "/"; "a" -> ".".
std::string parent_directory(const std::string& path);
// root + "/" + relative, without doubling slashes.
std::string join_path(std::string_view root, std::string_view relative);

Error system_error(std::string_view what, const std::string& path, int error_number);

}  // namespace tpslurm
