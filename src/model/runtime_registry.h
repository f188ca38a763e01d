// The runtime registry (TUNEPLANE_RUNTIME_REGISTRY_FILE): container images published as
// SQSH (Enroot/Pyxis) or SIF (Apptainer) files with their SHA-256.
//
//   { "runtimes": { "custom-pytorch-2.5": { "framework": "custom", "launcher": "srun",
//       "sqsh": { "path": "runtimes/pytorch-2.5.sqsh", "sha256": "…" },
//       "sif":  { "path": "runtimes/pytorch-2.5.sif",  "sha256": "…" } } } }
//
// Artifact paths are relative to the storage root and obey the container runtimes' path rule
// (model/runtime_path.h). Runtimes of
// framework `custom` must be named `custom-…`. parse() collects every problem. Immutable
// after parsing; safe to share between threads.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "model/problems.h"

namespace tpslurm::model {

enum class Launcher { srun, ray };
enum class RuntimeProfile { enroot_pyxis, apptainer };

std::string_view to_string(Launcher launcher);
std::string_view to_string(RuntimeProfile profile);  // "enroot-pyxis" | "apptainer"
std::optional<RuntimeProfile> parse_runtime_profile(std::string_view text);

struct Artifact {
  std::string path;    // relative to the storage root
  std::string sha256;  // 64 lower-case hex digits
};

struct Runtime {
  std::string id;
  std::string framework;
  Launcher launcher = Launcher::srun;
  std::optional<Artifact> sqsh;
  std::optional<Artifact> sif;

  // The artifact the profile runs: sqsh for enroot-pyxis, sif for apptainer.
  const std::optional<Artifact>& artifact_for(RuntimeProfile profile) const;
};

class RuntimeRegistry {
 public:
  static Result<RuntimeRegistry, Problems> parse(std::string_view json, std::string_view source);

  const Runtime* find(std::string_view id) const;
  const std::map<std::string, Runtime, std::less<>>& all() const { return m_runtimes; }

 private:
  std::map<std::string, Runtime, std::less<>> m_runtimes;
};

}  // namespace tpslurm::model
