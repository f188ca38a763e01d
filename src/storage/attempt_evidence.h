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
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace tpslurm::storage {

inline constexpr std::size_t kExitEvidenceMaxBytes = 4096;
inline constexpr std::size_t kJobEvidenceMaxBytes = 64 * 1024;

// logs/exit.json of the attempt directory, at most kExitEvidenceMaxBytes.
Result<std::string> read_exit_evidence(const std::string& attempt_dir);

// logs/slurm-job.json of the attempt directory, at most kJobEvidenceMaxBytes.
Result<std::string> read_job_evidence(const std::string& attempt_dir);

// logs/exit.json, the batch script's last act: {"exit_status": N, "failed_phase": P|null,
// "program_started": {...}} (render/attempt_files.h). The phase is the script's conclusion from
// those counts; only the status and the phase are read.
struct ExitEvidence {
  int exit_status = 0;       // the script's exit status
  std::string failed_phase;  // verify, container or program; empty when it succeeded. The job
                             // can write anything here: kept through printable().
};
// Strict: an object whose exit_status is an integer 0-255; anything else is no evidence.
std::optional<ExitEvidence> parse_exit_evidence(std::string_view text);
// The attempt's exit evidence, read and parsed; empty when there is none or it does not parse.
std::optional<ExitEvidence> read_exit(const std::string& attempt_dir);

// The Slurm job id logs/slurm-job.json names (het_job_id when set, else job_id), when it is a
// valid Slurm job id (1 to 0x03FFFFFF); empty otherwise.
std::optional<std::uint32_t> parse_job_evidence(std::string_view text);
// The attempt's job evidence, read and parsed; empty when there is none or it does not parse.
std::optional<std::uint32_t> read_job_id(const std::string& attempt_dir);

// Whether a copy of the attempt started: logs/ is written empty and only a job that ran writes
// there (the batch script's evidence, the output files Slurm opens when the job starts), so
// anything in it — or a logs/ that is no longer a plain directory — says one did; one entry is
// read, however many there are. false when the attempt directory or its logs/ does not exist;
// errors are those of reading logs/ itself.
Result<bool> attempt_started(const std::string& attempt_dir);

}  // namespace tpslurm::storage
