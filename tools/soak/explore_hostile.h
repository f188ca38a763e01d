// Hostile files: what a job can leave in its logs/ that a careless seal, cleanup or retention
// would choke on, planted by the explorer as the job (hostile_files):
//   sparse.bin      a 100 GiB sparse file (no blocks: `truncate -s 100G`)
//   many-NNNNN.log  kManyFiles small files
//   names of any bytes: control bytes, an escape sequence, invalid UTF-8, quotes, a newline, a
//                   backslash, a leading dash, blanks, shell syntax, a name of 255 bytes
//   deep/d/d/…      a tree kDeepLevels directories deep (deeper than the daemon's removal
//                   walks: storage/attempt_tree.h) with a file and a link to the outside
//                   directory at the bottom
// Everything is made through directory descriptors, so the depth never meets PATH_MAX.
// Not thread-safe.
#pragma once

#include <string>

#include "base/result.h"

namespace tpslurm::soak {

inline constexpr long long kSparseBytes = 100LL << 30;
inline constexpr int kManyFiles = 20000;
inline constexpr int kDeepLevels = 300;

// What was planted in `logs_dir`, in words; an error when it is not a directory or a step failed.
Result<std::string> plant_hostile_files(const std::string& logs_dir, const std::string& outside_dir);

}  // namespace tpslurm::soak
