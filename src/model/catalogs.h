// Catalogs: the two files every rendering needs, as loaded from the settings' paths
// (TUNEPLANE_GPU_SERIES_FILE, TUNEPLANE_RUNTIME_REGISTRY_FILE), and in per-user mode the user
// map (TUNEPLANE_USER_MAP_FILE). Plain values.
#pragma once

#include <map>
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
  std::optional<UserMap> users{};  // set in per-user mode
  // Per-user mode: each mapped user whose Unix user may not run jobs, with the reason and fix.
  // Judged once when the map is loaded (storage::refused_users), not on every request.
  std::map<std::string, std::string> refused_users{};
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

// The owner of a request validated against `catalogs` (the map it was judged by).
inline JobOwner owner_of(const LaunchRequest& request, const Catalogs& catalogs) {
  JobOwner owner{request.user.value_or(""), "", "", std::nullopt};
  const MappedUser* mapped = catalogs.users && request.user ? catalogs.users->find(*request.user) : nullptr;
  if (mapped != nullptr) {
    owner.unix_user = mapped->unix_user;
    owner.default_account = mapped->accounts.front();
    owner.max_live_jobs = mapped->max_live_jobs;
  }
  return owner;
}

// What a request is validated against under these settings; refers to both arguments, which
// must outlive it.
inline ValidationContext validation_context(const Catalogs& catalogs, const Settings& settings) {
  ValidationContext context{catalogs.gpu_series, catalogs.runtimes, settings.runtime_profile};
  if (settings.identity_mode == IdentityMode::per_user && catalogs.users) {
    context.users = &*catalogs.users;
    context.refused_users = &catalogs.refused_users;
    context.default_partition = settings.partition;
    context.default_cpu_partition = settings.cpu_partition;
  }
  return context;
}

}  // namespace tpslurm::model
