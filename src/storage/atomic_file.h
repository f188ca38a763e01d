// Durable file writes on the shared filesystem and the local disk.
//
// write_file_atomically() writes to a temporary file in the same directory (created 0600),
// gives it its group (when one is asked for) and then its mode, fsyncs it, renames it over the target and fsyncs the
// directory: after it returns OK the file is complete and durable; after a crash the target is either absent/old or
// complete, never half-written. Errors name the path and the system's reason. Thread-safe (no shared state).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

#include "base/file_system.h"
#include "base/result.h"

namespace tpslurm::storage {

enum class Overwrite { yes, no };

// Overwrite::no fails with invalid_argument if the target exists (checked atomically with
// link(2), so two writers cannot both win). `group` is the file's group; none keeps the
// process's own. The mode is set only after the group, so no other group ever reads the file.
Status write_file_atomically(const std::string& path, std::string_view content, mode_t mode,
                             Overwrite overwrite = Overwrite::yes, std::optional<gid_t> group = std::nullopt);

// A file of a directory whose completeness something written later vouches for (an attempt
// directory's manifest): created exclusively under its final name (0600), then group, mode and
// fsync as above, but neither a temporary name nor a directory fsync. After a crash it may be
// absent or half-written, which is why only such directories use it; the caller fsyncs each
// directory once after all its new files (fsync_directory) and before the voucher is written.
// Flush::later leaves out the file's fsync too: the caller's flush_filesystem() makes it durable.
Status write_new_file(const std::string& path, std::string_view content, mode_t mode,
                      std::optional<gid_t> group = std::nullopt, Flush flush = Flush::now);

}  // namespace tpslurm::storage
