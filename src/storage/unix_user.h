// Whether a Unix user may run a platform user's jobs (per-user mode, model/user_map.h): it must
// exist on this host (NSS, as the compute nodes would see it), and be none of the accounts whose
// power a job must never have: root, `nobody` (uid 65534), a system account (a uid below TUNEPLANE_FIRST_USER_ID:
// SlurmUser and the daemons live there) or the service account this daemon runs as (whose
// journal, keys and tokens a job must never reach). That Slurm knows the user and it has an
// association is for Slurm to say (`doctor`). Thread-safe (getpwnam_r); reads only.
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "model/user_map.h"
#include "storage/job_access.h"

namespace tpslurm::storage {

struct UnixUser {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
};

// The user by name; nullopt when NSS knows none (or cannot answer).
std::optional<UnixUser> find_unix_user(const std::string& name);

// Why `user`'s Unix user may not run jobs, with the fix; nullopt when it may. `service_uid` is
// the daemon's own (geteuid()).
std::optional<std::string> unix_user_problem(const model::MappedUser& user, long first_user_id, uid_t service_uid);

// Each mapped user that unix_user_problem() refuses, with its reason: judged once when the map is
// loaded (model::JudgedUserMap, judge_users() below), so a request costs no NSS lookup.
std::map<std::string, std::string> refused_users(const model::UserMap& users, long first_user_id, uid_t service_uid);

// `map` with its users judged by refused_users(), as requests are validated against it.
std::shared_ptr<const model::JudgedUserMap> judge_users(model::UserMap map, long first_user_id, uid_t service_uid);

// `doctor`'s "user map" check from those verdicts: the detail names each user and its uid, or
// each refusal.
JobAccessCheck check_user_map(const model::UserMap& users, const std::map<std::string, std::string>& refused);

}  // namespace tpslurm::storage
