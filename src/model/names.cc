#include "model/names.h"

#include <algorithm>

namespace tpslurm::model {
namespace {

// Owned by Slurm, the container runtime or the shell (LAUNCH_REQUEST.md).
constexpr std::string_view kOwnedPrefixes[] = {"SLURM_",    "SBATCH_",     "SRUN_",      "SALLOC_",   "PMI",
                                               "PMIX_",     "OMPI_",       "TUNEPLANE_", "ENROOT_",   "PYXIS_",
                                               "APPTAINER", "SINGULARITY", "NVIDIA_",    "BASH_FUNC_"};
constexpr std::string_view kOwnedNames[] = {
    "CUDA_VISIBLE_DEVICES", "LD_PRELOAD", "LD_LIBRARY_PATH", "BASH_ENV", "ENV", "PATH", "HOME", "IFS"};

// Used by bash itself: assigning them while the env file is loaded fails (read-only) or
// changes how the batch script runs.
constexpr std::string_view kShellNames[] = {
    "SHELLOPTS",  "POSIXLY_CORRECT", "EUID",         "UID",           "PPID",     "GROUPS",    "FUNCNAME", "CDPATH",
    "GLOBIGNORE", "FUNCNEST",        "EXECIGNORE",   "OPTIND",        "OPTARG",   "OPTERR",    "SECONDS",  "RANDOM",
    "SRANDOM",    "LINENO",          "EPOCHSECONDS", "EPOCHREALTIME", "DIRSTACK", "PIPESTATUS"};

// Set by the platform for every job: a request's value would be silently replaced.
constexpr std::string_view kPlatformNames[] = {"TMPDIR",      "NNODES",      "NODE_RANK", "MASTER_ADDR",
                                               "MASTER_PORT", "RAY_ADDRESS", "RAY_TMPDIR"};

template <std::size_t N>
bool listed(const std::string_view (&names)[N], std::string_view name) {
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

}  // namespace

bool is_env_name(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  return name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
         std::string_view::npos;
}

std::optional<std::string> reserved_env_name(std::string_view name) {
  for (const auto prefix : kOwnedPrefixes) {
    if (name.substr(0, prefix.size()) == prefix) {
      return "reserved name (" + std::string(prefix) +
             "* belongs to Slurm, the container runtime or the shell); rename the variable";
    }
  }
  if (listed(kOwnedNames, name)) {
    return "reserved name (" + std::string(name) +
           " belongs to Slurm, the container runtime or the shell); rename the variable";
  }
  if (name.substr(0, 4) == "BASH" || listed(kShellNames, name)) {
    return "is a variable bash itself uses, and the job's environment is loaded by bash; rename the variable";
  }
  if (name.substr(0, kScriptVariablePrefix.size()) == kScriptVariablePrefix) {
    return "reserved name (" + std::string(kScriptVariablePrefix) +
           "* are the batch script's own variables: the image, the mounts, the evidence files); rename the variable";
  }
  if (listed(kPlatformNames, name)) {
    return "is set by the platform for every job (the launcher and the attempt's scratch/); remove it";
  }
  return std::nullopt;
}

std::optional<std::string> slurm_name_problem(std::string_view value) {
  if (value.empty()) return "must not be empty";
  const bool bad = std::any_of(value.begin(), value.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7F || std::string_view(" ,;:'\"\\`$#").find(c) != std::string_view::npos;
  });
  if (bad) return "must be one Slurm name, without blanks, commas, colons, quotes, shell or control characters";
  return std::nullopt;
}

}  // namespace tpslurm::model
