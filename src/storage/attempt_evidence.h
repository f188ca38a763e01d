// The evidence the batch script leaves in its attempt's logs/ (model/attempt_layout.h): the
// Slurm job it became (logs/slurm-job.json) and its exit status (logs/exit.json).
//
// The job writes these files, so they are read through attempt_tree.h: a link (of the file or
// of logs/ itself) is never followed, a FIFO, socket or device is refused without blocking, and
// the read is bounded. The text is returned as it is; its callers parse it.
//
// Errors: not_found when the file (or logs/) does not exist; invalid_argument naming the path
// and what it is when it is not a regular file ("<dir>/logs/exit.json is a FIFO, not a regular
// file: ignored") or is larger than its limit; other read failures as system_error() makes
// them. Thread-safe.
#pragma once

#include <cstddef>
#include <string>

#include "base/result.h"

namespace tpslurm::storage {

inline constexpr std::size_t kExitEvidenceMaxBytes = 4096;
inline constexpr std::size_t kJobEvidenceMaxBytes = 64 * 1024;

// logs/exit.json of the attempt directory, at most kExitEvidenceMaxBytes.
Result<std::string> read_exit_evidence(const std::string& attempt_dir);

// logs/slurm-job.json of the attempt directory, at most kJobEvidenceMaxBytes.
Result<std::string> read_job_evidence(const std::string& attempt_dir);

// Whether a copy of the attempt started: logs/ is written empty and only a job that ran writes
// there (the batch script's evidence, the output files Slurm opens when the job starts), so
// anything in it — or a logs/ that is no longer a plain directory — says one did. false when the
// attempt directory or its logs/ does not exist; errors are those of reading logs/ itself.
Result<bool> attempt_started(const std::string& attempt_dir);

}  // namespace tpslurm::storage
