// What an attempt directory holds and what the batch script leaves in it: the contract
// between the renderer (which writes the script), storage (which writes the directory) and
// the reconciler (which reads the evidence).
//
//   job.sh                       the batch script (also sent in the submit request)
//   env                          the job's environment (NAME='value' lines), read-only
//   command                      the job's command (`set -- 'arg0' 'arg1' ...`), read-only;
//                                both are POSIX sh, read by the task's wrapper inside the
//                                container only (never by the batch script's shell)
//   credentials/ingest_token     read-only copy of the job's ingest credential (when it has one)
//   logs/                        scheduler logs: batch.{out,err}, component-<k>.{out,err},
//                                program.{out,err} (launcher ray), and the evidence files:
//     slurm-job.json             written as the script's first act:
//                                {"job_id", "het_job_id", "sluid", "batch_host", "node_list",
//                                 "components": [{"het_job_offset", "job_id", "node_list"}]}
//     exit.json                  written as the script's last act (removed if it cannot be):
//                                {"exit_status": N, "failed_phase": null | "verify" |
//                                 "container" | "program", "program_started": {"<log>": N |
//                                 null}}: per program step (component-<k>, or program under
//                                Ray), the lines "tuneplane: task <rank> starts the program"
//                                its stderr brought to the batch host, null when that stream
//                                could not be counted to its end
//   scratch/                     the job's temporary space (TMPDIR); Ray's temp directory is
//                                on each node's own disk instead (templates/header.mustache)
//     .tuneplane-verified/       one mark per node that verified the image
//   manifest.json                written last by storage: hashes of everything above
// Modes and group: model::attempt_modes(); the job writes only in logs/ and scratch/.
//
// `verify`: the image is missing or its SHA-256 is not the registry's (exit status
// kExitImageVerification; never retried). `container`: the program never started (the
// container or the launcher failed, or a mount source no longer leads where it did when the
// attempt was written; retryable), concluded only on positive evidence: every program step's
// stderr, read to its end on the batch host, held no start line (the task's wrapper writes one
// before it runs the program). `program`: the program ran and failed, or nothing proves that
// it did not (nothing the program can write, scratch/ or its own stderr, decides).
#pragma once

#include <string_view>

#include "model/attempt_layout.h"

namespace tpslurm::render {

using model::kExitEvidenceFile;
using model::kJobEvidenceFile;

inline constexpr std::string_view kScriptFile = "job.sh";
inline constexpr std::string_view kEnvFile = "env";
inline constexpr std::string_view kCommandFile = "command";
inline constexpr std::string_view kCredentialFile = "credentials/ingest_token";
inline constexpr std::string_view kLogsDir = "logs";
inline constexpr std::string_view kScratchDir = "scratch";
inline constexpr std::string_view kCredentialsDir = "credentials";
// Inside scratch/: one empty file per node (named after it) that verified the image.
inline constexpr std::string_view kVerifiedNodesDir = "scratch/.tuneplane-verified";

inline constexpr int kExitImageVerification = 91;  // the image is missing or its SHA-256 differs
inline constexpr int kExitContainerSetup = 92;     // the job's steps could not be prepared

inline constexpr std::string_view kPhaseVerify = "verify";
inline constexpr std::string_view kPhaseContainer = "container";
inline constexpr std::string_view kPhaseProgram = "program";

}  // namespace tpslurm::render
