#include "storage/unix_user.h"

#include <pwd.h>

#include <cerrno>
#include <vector>

namespace tpslurm::storage {
namespace {

constexpr uid_t kOverflowUid = 65534;

}  // namespace

std::optional<UnixUser> find_unix_user(const std::string& name) {
  std::vector<char> buffer(16384);
  struct passwd entry {};
  struct passwd* found = nullptr;
  while (::getpwnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found) == ERANGE &&
         buffer.size() < (1u << 20)) {
    buffer.resize(buffer.size() * 2);
  }
  if (found == nullptr) return std::nullopt;
  return UnixUser{found->pw_name, found->pw_uid, found->pw_gid};
}

std::optional<std::string> unix_user_problem(const model::MappedUser& user, long first_user_id, uid_t service_uid) {
  const std::string named = "\"" + user.platform_user + "\"'s Unix user \"" + user.unix_user + "\"";
  const auto found = find_unix_user(user.unix_user);
  if (!found) {
    return named + " does not exist on this host; create it (the compute nodes must know it too) or fix the user "
                   "map";
  }
  if (found->uid == 0) return named + " is root: no job runs as root; map the user to its own account";
  if (found->uid == kOverflowUid) {
    return named + " is the overflow user (uid 65534, `nobody`), whom every unmapped and root-squashed file belongs "
                   "to; map the user to its own account";
  }
  if (found->uid == service_uid) {
    return named + " is the account this daemon runs as: a job of it could change the journal and read every "
                   "secret; map the user to its own account";
  }
  if (static_cast<long>(found->uid) < first_user_id) {
    return named + " has uid " + std::to_string(found->uid) + ", below TUNEPLANE_FIRST_USER_ID (" +
           std::to_string(first_user_id) + "): system accounts (SlurmUser, daemons) run no jobs; map the user to "
           "its own account";
  }
  return std::nullopt;
}

std::map<std::string, std::string> refused_users(const model::UserMap& users, long first_user_id, uid_t service_uid) {
  std::map<std::string, std::string> refused;
  for (const auto& [name, user] : users.all()) {
    if (auto why = unix_user_problem(user, first_user_id, service_uid)) refused.emplace(name, std::move(*why));
  }
  return refused;
}

std::shared_ptr<const model::JudgedUserMap> judge_users(model::UserMap map, long first_user_id, uid_t service_uid) {
  auto refused = refused_users(map, first_user_id, service_uid);
  return std::make_shared<const model::JudgedUserMap>(model::JudgedUserMap{std::move(map), std::move(refused)});
}

JobAccessCheck check_user_map(const model::UserMap& users, const std::map<std::string, std::string>& refused) {
  if (users.all().empty()) {
    return {false, "the user map holds no user: every request is refused", "add each platform user to the map"};
  }
  if (!refused.empty()) {
    std::string reasons;
    for (const auto& [name, why] : refused) reasons += (reasons.empty() ? "" : "; ") + why;
    return {false, reasons, "create each Unix user on this host and the compute nodes, or map the platform user to "
                            "an account of its own"};
  }
  std::string accepted;
  for (const auto& [name, user] : users.all()) {
    const auto found = find_unix_user(user.unix_user);
    accepted += (accepted.empty() ? "" : ", ") + name + " as " + user.unix_user + " (uid " +
                (found ? std::to_string(found->uid) : std::string("gone since the map was loaded")) + ")";
  }
  return {true, std::to_string(users.all().size()) + " user(s): " + accepted, ""};
}

}  // namespace tpslurm::storage
