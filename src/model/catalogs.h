// Catalogs: the two files every rendering needs, as loaded from the settings' paths
// (TUNEPLANE_GPU_SERIES_FILE, TUNEPLANE_RUNTIME_REGISTRY_FILE), and in per-user mode the user
// map (TUNEPLANE_USER_MAP_FILE). Plain values.
#pragma once

#include <optional>

#include "model/gpu_series.h"
#include "model/launch_request.h"
#include "model/runtime_registry.h"
#include "model/settings.h"
#include "model/user_map.h"

namespace tpslurm::model {

struct Catalogs {
  GpuSeriesCatalog gpu_series;
  RuntimeRegistry runtimes;
  std::optional<UserMap> users{};  // set in per-user mode
};

// What a request is validated against under these settings; refers to both arguments, which
// must outlive it.
inline ValidationContext validation_context(const Catalogs& catalogs, const Settings& settings) {
  ValidationContext context{catalogs.gpu_series, catalogs.runtimes, settings.runtime_profile};
  if (settings.identity_mode == IdentityMode::per_user && catalogs.users) {
    context.users = &*catalogs.users;
    context.default_partition = settings.partition;
    context.default_cpu_partition = settings.cpu_partition;
  }
  return context;
}

}  // namespace tpslurm::model
