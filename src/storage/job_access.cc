#include "storage/job_access.h"

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/algorithm/string/join.hpp>
#include <optional>
#include <vector>

#include "base/file_system.h"
#include "model/attempt_layout.h"
#include "storage/user_acl.h"

namespace tpslurm::storage {
namespace {

struct User {
  std::string name;
  uid_t uid = 0;
  gid_t primary_group = 0;
};

std::optional<User> user_named(const std::string& name) {
  const struct passwd* entry = ::getpwnam(name.c_str());
  if (entry == nullptr) return std::nullopt;
  return User{entry->pw_name, entry->pw_uid, entry->pw_gid};
}

std::optional<User> this_user() {
  const struct passwd* entry = ::getpwuid(::geteuid());
  if (entry == nullptr) return std::nullopt;
  return User{entry->pw_name, entry->pw_uid, entry->pw_gid};
}

struct Group {
  gid_t gid = 0;
  std::vector<std::string> members;  // supplementary members as listed
};

std::optional<Group> group_named(const std::string& name) {
  const struct group* entry = ::getgrnam(name.c_str());
  if (entry == nullptr) return std::nullopt;
  Group group{entry->gr_gid, {}};
  for (char** member = entry->gr_mem; member != nullptr && *member != nullptr; ++member) {
    group.members.emplace_back(*member);
  }
  return group;
}

bool is_member(const User& user, const Group& group) {
  return user.primary_group == group.gid ||
         std::find(group.members.begin(), group.members.end(), user.name) != group.members.end();
}

// "a, b, c".
std::string join(const std::vector<std::string>& words) { return boost::algorithm::join(words, ", "); }

JobAccessCheck failed(std::string detail, std::string fix) { return {false, std::move(detail), std::move(fix)}; }

// <root>/slurm, where it exists: the group's, and nothing for others.
std::optional<JobAccessCheck> tree_problem(const model::Settings& settings, const std::string& group_name,
                                           const Group& group) {
  if (settings.storage_root.empty()) return std::nullopt;
  const std::string tree = join_path(settings.storage_root, model::kProgramDir);
  struct stat info {};
  if (::stat(tree.c_str(), &info) != 0) return std::nullopt;  // created with the group when first needed
  if (info.st_gid != group.gid || (info.st_mode & 07) != 0 || (info.st_mode & 050) != 050) {
    return failed(tree + " has group id " + std::to_string(info.st_gid) + " and mode " + mode_text(info.st_mode) +
                      ": the job user cannot reach its attempts, or others can",
                  "chgrp -R " + group_name + " " + tree + " && chmod -R o-rwx,g+rX " + tree);
  }
  return std::nullopt;
}

JobAccessCheck check_shared_group(const model::Settings& settings, const User& service, const User& job) {
  const std::string& name = settings.storage_group;
  const auto group = group_named(name);
  if (!group) return failed("TUNEPLANE_STORAGE_GROUP " + name + " is not a group on this host", "create it");
  if (!is_member(job, *group)) {
    return failed("the job user " + job.name + " is not a member of " + name +
                      ": its jobs cannot read their env or credential, nor write their logs",
                  "add " + job.name + " to " + name + " (usermod -aG " + name + " " + job.name + ")");
  }
  if (service.uid != 0 && !is_member(service, *group)) {
    return failed("the service account " + service.name + " is not a member of " + name +
                      ": it cannot give the attempts their group",
                  "add " + service.name + " to " + name + " (usermod -aG " + name + " " + service.name + ")");
  }
  std::vector<std::string> others;
  for (const auto& member : group->members) {
    if (member != job.name && member != service.name) others.push_back(member);
  }
  if (!others.empty()) {
    return failed(name + " also has " + join(others) + " as members: every member can read every job's credential",
                  "remove them from " + name + ", or make a group for the service account and the job user alone");
  }
  if (auto tree = tree_problem(settings, name, *group)) return *tree;
  return {true,
          "jobs run as " + job.name + ", the daemon as " + service.name + "; attempts are shared through the group " +
              name + " and closed to others",
          {}};
}

// Every group the user is in, its primary group included.
std::vector<gid_t> groups_of(const User& user) {
  std::vector<gid_t> groups(32);
  int count = static_cast<int>(groups.size());
  while (::getgrouplist(user.name.c_str(), user.primary_group, groups.data(), &count) == -1) {
    groups.resize(std::max(static_cast<std::size_t>(count), groups.size() * 2));
    count = static_cast<int>(groups.size());
  }
  groups.resize(static_cast<std::size_t>(count));
  return groups;
}

// Why the job user can change what `info` describes, or nullopt.
std::optional<std::string> job_user_may_write(const struct stat& info, const User& job,
                                              const std::vector<gid_t>& groups) {
  if (info.st_uid == job.uid) return "the job user " + job.name + " owns it";
  if ((info.st_mode & S_IWGRP) != 0 && std::find(groups.begin(), groups.end(), info.st_gid) != groups.end()) {
    return "it is writable by its group (id " + std::to_string(info.st_gid) + "), which has the job user " + job.name;
  }
  if ((info.st_mode & S_IWOTH) != 0) return "it is writable by everyone";
  return std::nullopt;
}

// The first path on the way from the storage root to `image` that the job user can change.
std::optional<JobAccessCheck> image_path_problem(const std::string& root, const std::string& image, const User& job,
                                                 const std::vector<gid_t>& groups) {
  std::string path = root;
  std::size_t at = 0;
  for (;;) {
    // A symbolic link itself cannot be changed (its mode means nothing), only replaced through
    // its directory, judged before it; what it leads to can.
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0) return std::nullopt;
    if (S_ISLNK(info.st_mode) && ::stat(path.c_str(), &info) != 0) return std::nullopt;
    const auto why = job_user_may_write(info, job, groups);
    if (why) {
      return failed("the job user can change " + path + " (" + *why + "), on the way to the runtime image " + image +
                        ": a job could replace the image between the nodes' check and the runtime's open",
                    "give " + path + " to an account jobs do not run as, not writable by the job user (chown, chmod go-w)");
    }
    if (at == std::string::npos) return std::nullopt;
    const auto slash = image.find('/', at);
    path = join_path(root, image.substr(0, slash));
    at = slash == std::string::npos ? slash : slash + 1;
  }
}

}  // namespace

JobAccessCheck check_image_access(const model::Settings& settings, const std::vector<std::string>& image_paths) {
  return check_image_access(settings, image_paths, std::vector<std::string>{settings.rest_user});
}

JobAccessCheck check_image_access(const model::Settings& settings, const std::vector<std::string>& image_paths,
                                  const std::vector<std::string>& job_users) {
  for (const std::string& name : job_users) {
    const auto job = user_named(name);
    const std::string who = job_users.size() > 1 ? name + ": " : "";
    if (!job) {
      return failed(who + "the job user " + name + " is not known on this host, so its access to the images " +
                        "cannot be checked",
                    "make the cluster's accounts visible here (the same NSS/LDAP as the compute nodes)");
    }
    const std::vector<gid_t> groups = groups_of(*job);
    for (const auto& image : image_paths) {
      if (auto problem = image_path_problem(settings.storage_root, image, *job, groups)) {
        problem->detail = who + problem->detail;
        return *problem;
      }
    }
  }
  const std::string images = std::to_string(image_paths.size());
  if (job_users.size() == 1) {
    return {true,
            "the job user " + job_users.front() + " can change none of the runtime images (" + images +
                ") nor the directories above them",
            {}};
  }
  return {true,
          "none of the " + std::to_string(job_users.size()) + " mapped Unix users can change a runtime image (" +
              images + ") or a directory above one",
          {}};
}

namespace {

// Per-user mode: the storage root keeps ACLs naming a user (one probe directory made there and
// removed), and the program's tree, where it exists, is passable but neither readable nor
// writable by anyone else.
JobAccessCheck check_per_user_files(const model::Settings& settings, const User& service) {
  const std::string tree = join_path(settings.storage_root, model::kProgramDir);
  struct stat info {};
  const std::string probed = ::stat(tree.c_str(), &info) == 0 ? tree : settings.storage_root;
  const auto probe_user = user_named("nobody");
  const uid_t named = probe_user ? probe_user->uid : 65534;
  if (Status supported = check_acl_support(probed, named); !supported.ok()) {
    return failed("per-user mode gives each job's files to its user by ACL, and " + probed +
                      " cannot keep one: " + supported.error().message(),
                  "mount the storage where POSIX ACLs are kept (ext4 and XFS keep them; NFS over NFSv3 with its ACL "
                  "protocol, not NFSv4, whose client refuses them; Lustre with ACLs on its MDT) and make it writable "
                  "by " + service.name);
  }
  for (const std::string& dir : {tree, join_path(tree, "jobs")}) {
    if (::stat(dir.c_str(), &info) != 0) continue;
    if ((info.st_mode & 066u) != 0) {
      return failed(dir + " has mode " + mode_text(info.st_mode) + ": other users may list or change the jobs there",
                    "chmod 0711 " + dir + " (every job's user passes through it; none may list it)");
    }
  }
  return {true, "per-user mode: " + probed + " keeps ACLs naming a user; each job's files are its user's and " +
                    service.name + "'s alone",
          {}};
}

}  // namespace

JobAccessCheck check_job_access(const model::Settings& settings) {
  const auto service = this_user();
  if (!service) return failed("this process's user (uid " + std::to_string(::geteuid()) + ") has no name", "");
  if (settings.identity_mode == model::IdentityMode::per_user) return check_per_user_files(settings, *service);
  if (settings.rest_user.empty()) {
    return failed("TUNEPLANE_SLURM_REST_USER is not set, so the job user is unknown",
                  "set it to the Slurm user jobs run as");
  }
  const auto job = user_named(settings.rest_user);
  if (!job) {
    return failed("the job user " + settings.rest_user +
                      " is not known on this host, so its access to the attempts cannot be checked",
                  "make the cluster's accounts visible here (the same NSS/LDAP as the compute nodes)");
  }
  if (!settings.storage_group.empty()) return check_shared_group(settings, *service, *job);
  if (job->uid == service->uid) {
    return {true, "jobs run as " + job->name + ", the daemon's own user; attempts are the owner's alone", {}};
  }
  return failed("jobs run as " + job->name + " but the daemon runs as " + service->name +
                    " and TUNEPLANE_STORAGE_GROUP is not set: the jobs cannot read their env or credential, nor write "
                    "their logs",
                "create a group whose only members are " + service->name + " and " + job->name +
                    ", and set TUNEPLANE_STORAGE_GROUP to it");
}

}  // namespace tpslurm::storage
