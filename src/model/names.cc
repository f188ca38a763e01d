#include "model/names.h"

#include <algorithm>

namespace tpslurm::model {
namespace {

// Owned by Slurm, the container runtime or the shell (docs/launch-request.md).
constexpr std::string_view kOwnedPrefixes[] = {"SLURM_",    "SBATCH_",     "SRUN_",      "SALLOC_",   "PMI",
                                               "PMIX_",     "OMPI_",       "TUNEPLANE_", "ENROOT_",   "PYXIS_",
                                               "APPTAINER", "SINGULARITY", "NVIDIA_",    "BASH_FUNC_"};
constexpr std::string_view kOwnedNames[] = {"CUDA_VISIBLE_DEVICES", "BASH_ENV", "ENV", "PATH", "HOME", "IFS"};

// Used by the shell itself: assigning them while the env file is loaded fails (read-only) or
// changes how the task's wrapper runs.
constexpr std::string_view kShellNames[] = {
    "SHELLOPTS",  "POSIXLY_CORRECT", "EUID",         "UID",           "PPID",     "GROUPS",    "FUNCNAME", "CDPATH",
    "GLOBIGNORE", "FUNCNEST",        "EXECIGNORE",   "OPTIND",        "OPTARG",   "OPTERR",    "SECONDS",  "RANDOM",
    "SRANDOM",    "LINENO",          "EPOCHSECONDS", "EPOCHREALTIME", "DIRSTACK", "PIPESTATUS"};

// Read by the dynamic loader or the C library (glibc's list of variables it ignores for setuid
// programs, elf/dl-unsecvars.h, and musl's locale path): they make any program load other code
// or data. By family, then one by one (TMPDIR, also on glibc's list, is the platform's).
constexpr std::string_view kLoaderPrefixes[] = {"LD_", "MALLOC_", "GLIBC_", "RESOLV_"};
constexpr std::string_view kLoaderNames[] = {"GCONV_PATH",  "GETCONF_DIR", "HOSTALIASES", "LOCALDOMAIN",
                                             "LOCPATH",     "MUSL_LOCPATH", "NIS_PATH",    "NLSPATH",
                                             "RES_OPTIONS", "TZDIR"};

// Set by the platform for every job: a request's value would be silently replaced.
constexpr std::string_view kPlatformNames[] = {"TMPDIR",      "NNODES",      "NODE_RANK", "MASTER_ADDR",
                                               "MASTER_PORT", "RAY_ADDRESS", "RAY_TMPDIR"};

bool is_upper_case_name(std::string_view name) {
  if (name.empty() || name[0] < 'A' || name[0] > 'Z') return false;
  return name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == std::string_view::npos;
}

std::string loader_problem(std::string_view family, std::string_view name) {
  return "is read by the dynamic loader or the C library (" + std::string(family) +
         "); a request may not set it: remove it, or start the command with \"env\", \"" + std::string(name) +
         "=...\" to set it for the program inside the container";
}

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
    return "is a variable the shell itself uses, and the job's environment is loaded by a shell; rename the variable";
  }
  for (const auto prefix : kLoaderPrefixes) {
    if (name.substr(0, prefix.size()) == prefix) return loader_problem(std::string(prefix) + "*", name);
  }
  if (listed(kLoaderNames, name)) return loader_problem(name, name);
  if (name.substr(0, kScriptVariablePrefix.size()) == kScriptVariablePrefix) {
    return "reserved name (" + std::string(kScriptVariablePrefix) +
           "* are the batch script's own variables: the image, the mounts, the evidence files); rename the variable";
  }
  if (listed(kPlatformNames, name)) {
    return "is set by the platform for every job (the launcher and the attempt's scratch/); remove it";
  }
  return std::nullopt;
}

std::optional<std::string> request_env_name_problem(std::string_view name) {
  if (!is_env_name(name)) {
    return "is not a valid variable name; use letters, digits and '_', not starting with a digit";
  }
  if (auto why = reserved_env_name(name)) return why;
  if (!is_upper_case_name(name)) {
    return "is not a name a request may set: use upper-case letters, digits and '_', starting with a letter "
           "([A-Z][A-Z0-9_]*); rename the variable";
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
