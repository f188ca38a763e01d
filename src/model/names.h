// Rules for the names requests and settings carry: environment variable names (and which a
// request may not set), and Slurm names (partition, account, QoS, reservation, wckey).
// The validator, the configuration loader and the renderer all ask these functions, so a
// name is judged the same way everywhere. Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tpslurm::model {

// [A-Za-z_][A-Za-z0-9_]*
bool is_env_name(std::string_view name);

// Why a job's request may not set `name`, or nullopt when it may:
//  - names Slurm, the container runtime or the shell own (SLURM_*, PMI*, PATH, ...);
//  - variables bash itself uses (the env file is loaded by bash: BASH*, SHELLOPTS, UID, ...);
//  - variables the platform sets for every job (TMPDIR, NNODES, MASTER_ADDR, RAY_ADDRESS, ...);
//  - the batch script's own variables (kScriptVariablePrefix): the env file is loaded into the
//    script's shell, so one of them could replace the image, the mounts or the evidence paths.
std::optional<std::string> reserved_env_name(std::string_view name);

// Every variable the batch script itself assigns starts with this prefix (templates/; a test
// reads every template and holds them to it), so reserving the prefix reserves them all.
inline constexpr std::string_view kScriptVariablePrefix = "tp_";

// Why `value` is not one Slurm name (empty, or blanks, commas, colons, quotes, shell
// characters or control characters that Slurm or an #SBATCH line would split on), or nullopt.
std::optional<std::string> slurm_name_problem(std::string_view value);

}  // namespace tpslurm::model
