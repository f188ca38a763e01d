// Rules for the names requests and settings carry: environment variable names (and which a
// request may not set), and Slurm names (partition, account, QoS, reservation, wckey).
// The validator, the configuration loader and the renderer all ask these functions, so a
// name is judged the same way everywhere. Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tpslurm::model {

// [A-Za-z_][A-Za-z0-9_]*: any variable name (settings files take these).
bool is_env_name(std::string_view name);

// Why a job's request may not set `name`, or nullopt when it may:
//  - names Slurm, the container runtime or the shell own (SLURM_*, PMI*, PATH, ...);
//  - variables the shell itself uses (BASH*, SHELLOPTS, UID, ...): the env file is loaded by
//    a shell, the task's wrapper inside the container;
//  - variables the dynamic loader or the C library read (LD_*, GCONV_PATH, LOCPATH,
//    MALLOC_*, GLIBC_TUNABLES, ...): no request value reaches a host process, and these are
//    refused all the same, so that a mistake in a template could not hand one to srun, the
//    container runtime or a shell on the host;
//  - variables the platform sets for every job (TMPDIR, NNODES, MASTER_ADDR, RAY_ADDRESS, ...);
//  - the batch script's own variables (kScriptVariablePrefix).
std::optional<std::string> reserved_env_name(std::string_view name);

// Why a request's spec.env may not set `name` (with the fix), or nullopt: not a variable name
// at all, then reserved_env_name(), then the allowlist of shapes: upper-case letters, digits
// and '_', starting with a letter ([A-Z][A-Z0-9_]*). The validator and the renderer both ask
// this one function.
std::optional<std::string> request_env_name_problem(std::string_view name);

// Every variable the batch script itself assigns starts with this prefix (templates/; a test
// reads every template and holds them to it), so reserving the prefix reserves them all.
inline constexpr std::string_view kScriptVariablePrefix = "tp_";

// Why `value` is not one Slurm name (empty, or blanks, commas, colons, quotes, shell
// characters or control characters that Slurm or an #SBATCH line would split on), or nullopt.
std::optional<std::string> slurm_name_problem(std::string_view value);

}  // namespace tpslurm::model
