// Job array specifications, read and written as slurmctld does.
//
// parse_array_spec() is slurmctld's _valid_array_inx()/_parse_array_tok() (job_mgr.c at
// slurm-22-05-8-1; the same rules at slurm-26-05-3-1): comma-separated tokens `N`, `A-B` or
// `A-B:S`, each optionally in `[...]`, a token may end in `%P`; every task id must be below
// MaxArraySize, and the number of tasks at most max_array_tasks when that is set. The
// throttle is the number after the string's first `%` (0 = none). Anything else (or
// MaxArraySize 0) is not an array slurmctld accepts: the caller answers 2081.
// array_task_string() is libslurm's xlate_array_task_str(): a stride "A-B:S" when the set is
// one (more than 5 tasks over more than 10 ids), otherwise ranges ("3,5-9") cut to the first
// 60 characters and "..." once longer than 61 (SLURM_BITSTR_LEN's default 64), then "%P" if
// throttled. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace tpslurm::sim {

struct ArrayLimits {
  std::uint32_t max_array_size = 1001;           // MaxArraySize: every task id is below it
  std::optional<std::uint32_t> max_array_tasks;  // SchedulerParameters max_array_tasks=
};

struct ArraySpec {
  std::set<std::uint32_t> tasks;
  std::uint32_t max_run = 0;  // %P; 0: no throttle
  std::uint32_t step = 1;     // the number after the first ':' (SLURM_ARRAY_TASK_STEP)
};

std::optional<ArraySpec> parse_array_spec(std::string_view text, const ArrayLimits& limits);

std::string array_task_string(const std::set<std::uint32_t>& tasks, std::uint32_t max_run);

// build_array_str()'s bit_fmt_hexmask(): "0x" and the bitmap of ids 0..max in upper-case hex,
// most significant first ("0x3F8" for 3-9); "" for no tasks.
std::string array_hexmask(const std::set<std::uint32_t>& tasks);

}  // namespace tpslurm::sim
