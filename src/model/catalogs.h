// Catalogs: the two files every rendering needs, as loaded from the settings' paths
// (TUNEPLANE_GPU_SERIES_FILE, TUNEPLANE_RUNTIME_REGISTRY_FILE), and in per-user mode the user
// map (TUNEPLANE_USER_MAP_FILE). Plain values.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "model/gpu_series.h"
#include "model/launch_request.h"
#include "model/runtime_registry.h"
#include "model/settings.h"
#include "model/user_map.h"

namespace tpslurm::model {

struct Catalogs {
  GpuSeriesCatalog gpu_series;
  RuntimeRegistry runtimes;
  // Per-user mode: the user map as loaded with the catalogs (the API reads it again when it
  // changes: api/user_map_file.h); null in one-user mode.
  std::shared_ptr<const JudgedUserMap> users{};
};

// Whose a job is, fixed when it is accepted: the platform user its request names (empty: none),
// and in per-user mode the Unix user it runs as and the account it is charged when the request
// names none (both empty in one-user mode: the deployment's job user and its account), and the
// user's limit of jobs not yet ended.
struct JobOwner {
  std::string platform_user;
  std::string unix_user;
  std::string default_account;
  std::optional<int> max_live_jobs;
};

// The owner of a request validated against `users` (the map it was judged by; null in one-user
// mode).
inline JobOwner owner_of(const LaunchRequest& request, const JudgedUserMap* users) {
  JobOwner owner{request.user.value_or(""), "", "", std::nullopt};
  const MappedUser* mapped = users != nullptr && request.user ? users->map.find(*request.user) : nullptr;
  if (mapped != nullptr) {
    owner.unix_user = mapped->unix_user;
    owner.default_account = mapped->accounts.front();
    owner.max_live_jobs = mapped->max_live_jobs;
  }
  return owner;
}

// What a request is validated against under these settings and, in per-user mode, `users`;
// refers to every argument, which must outlive it.
inline ValidationContext validation_context(const Catalogs& catalogs, const Settings& settings,
                                            const JudgedUserMap* users) {
  ValidationContext context{catalogs.gpu_series, catalogs.runtimes, settings.runtime_profile};
  if (settings.identity_mode == IdentityMode::per_user && users != nullptr) {
    context.users = &users->map;
    context.refused_users = &users->refused;
    context.default_partition = settings.partition;
    context.default_cpu_partition = settings.cpu_partition;
  }
  return context;
}

// The same with the map loaded with the catalogs.
inline ValidationContext validation_context(const Catalogs& catalogs, const Settings& settings) {
  return validation_context(catalogs, settings, catalogs.users.get());
}

}  // namespace tpslurm::model
