// The user map (TUNEPLANE_USER_MAP_FILE): in per-user mode, which Unix user each platform user's
// jobs run as, and what that user may ask Slurm for. The operator owns it; it is a catalog
// like the other two (model/detail/catalog_document.h), read the same way:
//
//   { "users": { "alice": { "unix_user": "alice",
//                           "accounts": ["proj-a", "proj-b"],   // the first is the default
//                           "qos": ["normal"],                   // optional; the first is the default
//                           "partitions": ["gpu", "cpu"],        // optional; absent: the site's
//                           "max_live_jobs": 50 } } }            // optional; absent: no limit
//
// A platform user name is what a request's `user` carries ([a-z0-9][a-z0-9._-]{0,63}); a Unix
// user name is what useradd takes ([a-z_][a-z0-9_-]{0,31}). Two platform users may not share one
// Unix user: the Unix user is the boundary between tenants. Every Slurm name is judged by
// slurm_name_problem(). parse() collects every problem; what it checks is the text alone — that
// each Unix user exists, is not a system account and is known to Slurm is checked where the
// accounts are (storage/unix_user.h, `doctor`). Immutable after parsing; safe to share.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "model/problems.h"

namespace tpslurm::model {

struct MappedUser {
  std::string platform_user;
  std::string unix_user;
  std::vector<std::string> accounts;    // at least one; the first is the default
  std::vector<std::string> qos;         // empty: the association's default, and no QoS may be asked
  std::vector<std::string> partitions;  // empty: any partition the site's settings name
  std::optional<int> max_live_jobs;     // jobs not yet ended at once; nullopt: no limit

  bool may_use_account(std::string_view account) const;
  bool may_use_qos(std::string_view qos) const;
  bool may_use_partition(std::string_view partition) const;
};

class UserMap {
 public:
  static Result<UserMap, Problems> parse(std::string_view json, std::string_view source);

  const MappedUser* find(std::string_view platform_user) const;
  const std::map<std::string, MappedUser, std::less<>>& all() const { return m_users; }

 private:
  std::map<std::string, MappedUser, std::less<>> m_users;
};

// The map as loaded, with each mapped user whose Unix user may not run jobs and why (judged
// once per load: storage::refused_users), so that a request costs no lookup.
struct JudgedUserMap {
  UserMap map;
  std::map<std::string, std::string> refused;
};

// [a-z0-9][a-z0-9._-]{0,63}: a platform user's name as requests and the map carry it.
bool is_platform_user_name(std::string_view name);
// [a-z_][a-z0-9_-]{0,31}: a Unix user name as useradd takes it (no trailing '$').
bool is_unix_user_name(std::string_view name);

}  // namespace tpslurm::model
