// What the real Slurm the tests run against speaks: tools/local-slurm env (or
// tools/slurm-release env for another release) exports TUNEPLANE_SLURM_REST_API_VERSION, the
// newest REST version of the cluster's release (v0.0.38 on Debian's 22.05, v0.0.42 on 24.11,
// v0.0.40 on 23.11). The daemon under test is left to choose by itself (auto); the tests' own
// clients speak this version, and fault rules name it in their paths.
#pragma once

#include <cstdlib>
#include <string>

namespace tpslurm::testing {

inline std::string local_slurm_version() {
  const char* version = std::getenv("TUNEPLANE_SLURM_REST_API_VERSION");
  return version != nullptr && *version != '\0' ? std::string(version) : std::string("v0.0.38");
}

}  // namespace tpslurm::testing
