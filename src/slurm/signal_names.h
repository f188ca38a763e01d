// The signal names this client ever puts in `DELETE job/{id}?signal=NAME`, and the check that
// keeps every other name from leaving.
//
// A name slurmrestd cannot parse is not refused everywhere: v0.0.4x's data_parser SIGNAL
// parser (data_parser/v0.0.43-45/parsers.c PARSE_FUNC(SIGNAL) at slurm-26-05-3-1, the same at
// 25.05 and 25.11) records the unknown name as a note with error number 0 and leaves the
// signal unset, which the DELETE handler (openapi/slurmctld/jobs.c _parse_job_delete) turns
// into SIGKILL. A real 26.05.3 answers 200 with `status: []` and errors[0] "Unknown signal
// (null)" (source "#/signal/"), and the job is CANCELLED (REAL-26.05-NOTES.md). 22.05's
// v0.0.38 refuses it instead (openapi/v0.0.38/jobs.c _op_handler_job: "invalid signal: 0",
// error 9000). So a misspelt checkpoint signal would kill the job on 25.05-26.05.
//
// Both read the name with sig_name2num (src/common/proc_args.c): a number, or a name from its
// table with an optional "SIG" prefix, in any case. At slurm-22-05-8-1 the table holds HUP INT
// QUIT ABRT KILL ALRM TERM USR1 USR2 URG CONT STOP TSTP TTIN TTOU XCPU; 24.05 added CHLD and
// PIPE, and 26.05.3 has those 18. The list here is a subset of what both parse, spelled with
// the prefix (accepted by both), and only the names a training job is ever sent: the
// checkpoint signal, the polite stops and the kill. SIGSTOP and SIGCONT are left out: slurmctld
// refuses them with 2020 while an earlier one is still being delivered (job_mgr.c job_signal),
// which would read as "not running".
//
// Pure functions over constants; thread-safe.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace tpslurm::slurm {

// "SIGHUP", "SIGINT", "SIGKILL", "SIGTERM", "SIGUSR1", "SIGUSR2", in that order.
std::span<const std::string_view> sendable_signals();

// True when `name` is on the list, spelled exactly as there.
bool is_sendable_signal(std::string_view name);

// Why `name` is not sent, naming it and the names that are: `signal "USR1" is not one this
// client sends (...); use SIGHUP, SIGINT, SIGKILL, SIGTERM, SIGUSR1 or SIGUSR2, or no signal
// for Slurm's default kill`.
std::string unsendable_signal_message(std::string_view name);

// True for the names that end the job as the default does (SIGKILL), so that a refusal of
// them is not a refusal of a signal to a job that is not running.
bool is_kill_signal(std::string_view name);

}  // namespace tpslurm::slurm
