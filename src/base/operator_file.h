// The one rule for the files that say what the daemon may do — the catalogs (GPU series,
// runtime registry) and the user map: whoever can change one decides which image a job runs or
// which Unix user runs whose jobs. Such a file is read whole (at most kMaxOperatorFileBytes) and
// refused, naming its path, what is wrong and the fix, when it is not a regular file, belongs to
// a user other than root or the reader, or may be written by its group or others. A path may be
// a symbolic link (configuration managers make them); the file it leads to is judged. Thread-safe.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>

#include "base/result.h"

namespace tpslurm {

inline constexpr std::size_t kMaxOperatorFileBytes = std::size_t{4} << 20;

Result<std::string> read_operator_file(const std::string& path, uid_t reader_uid);

}  // namespace tpslurm
