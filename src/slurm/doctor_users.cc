#include "slurm/doctor_users.h"

#include <algorithm>
#include <boost/algorithm/string/join.hpp>

#include "model/deploy_guide.h"

namespace tpslurm::slurm {
namespace {

using boost::algorithm::join;

std::string refused_fix(const model::Settings& settings) {
  if (model::mints_tokens(settings)) {
    return "make TUNEPLANE_SLURM_JWT_KEY_FILE a copy of the cluster's jwt_key (AuthAltParameters), and give "
           "slurmrestd's and slurmctld's hosts the user (the same NSS as the nodes)";
  }
  return "write TUNEPLANE_SLURM_JWT_FILE with a token of SlurmUser or root (scontrol token username=<SlurmUser>): "
         "only those may name another user in X-SLURM-USER-NAME; or set TUNEPLANE_SLURM_JWT_KEY_FILE to mint "
         "per user";
}

struct Problem {
  std::string text;
  bool refused = false;  // Slurm refused the call as the user: the identity, not the associations
};

// What is wrong with one user on the Slurm side, or nothing.
std::optional<Problem> user_problem(SlurmClient& client, const model::MappedUser& user, bool accounting,
                                    std::string& accounts_seen) {
  const std::string named = "\"" + user.platform_user + "\" as " + user.unix_user;
  const CallResult call = client.preflight(user.unix_user);
  if (call.outcome == Outcome::auth) {
    return Problem{named + ": Slurm refused a call as the user (" + call.message + ")", true};
  }
  if (!call.ok()) return Problem{named + ": a call as the user failed (" + call.message + ")", true};
  if (!accounting) return std::nullopt;
  const AssociationsResult found = client.associations(user.unix_user);
  if (!found.ok()) return Problem{named + ": its associations could not be read (" + found.message + ")"};
  if (found.accounting_off) return std::nullopt;
  std::vector<std::string> accounts;
  for (const auto& association : found.associations) {
    if (std::find(accounts.begin(), accounts.end(), association.account) == accounts.end()) {
      accounts.push_back(association.account);
    }
  }
  if (accounts.empty()) {
    return Problem{named + ": slurmdbd holds no association of the user (sacctmgr add user " + user.unix_user +
                   " account=" + user.accounts.front() + ")"};
  }
  std::vector<std::string> missing;
  for (const auto& account : user.accounts) {
    if (std::find(accounts.begin(), accounts.end(), account) == accounts.end()) missing.push_back(account);
  }
  if (!missing.empty()) {
    return Problem{named + ": the map lets it charge " + join(missing, ", ") +
                   ", but slurmdbd holds no association of the user with " + (missing.size() == 1 ? "it" : "them") +
                   " (it has " + join(accounts, ", ") + "; sacctmgr add user " + user.unix_user +
                   " account=" + join(missing, ",") + ", or take them out of the map)"};
  }
  accounts_seen = join(accounts, ", ");
  return std::nullopt;
}

}  // namespace

DoctorCheck check_slurm_users(SlurmClient& client, const model::Settings& settings,
                              std::span<const model::MappedUser> users, bool accounting) {
  const std::string how = model::mints_tokens(settings) ? "a token minted for each from TUNEPLANE_SLURM_JWT_KEY_FILE"
                                          : "the token file's token, each user named in X-SLURM-USER-NAME";
  if (users.empty()) return {"Slurm users", false, "no mapped user may run jobs", "see the user map line"};
  std::vector<std::string> problems;
  std::vector<std::string> accepted;
  bool refused = false;
  bool associations = false;
  for (const auto& user : users) {
    std::string accounts;
    if (auto problem = user_problem(client, user, accounting, accounts)) {
      problems.push_back(std::move(problem->text));
      (problem->refused ? refused : associations) = true;
    } else {
      accepted.push_back(user.unix_user + (accounts.empty() ? "" : " (associations: " + accounts + ")"));
    }
  }
  if (!problems.empty()) {
    std::vector<std::string> fixes;
    if (refused) fixes.push_back(model::fix_with_step(refused_fix(settings), model::DeployStep::service_user));
    if (associations) {
      fixes.push_back(model::fix_with_step("add each user's associations in slurmdbd (sacctmgr), or fix the map",
                                           model::DeployStep::min_job_age));
    }
    return {"Slurm users", false, join(problems, "; "), join(fixes, "; ")};
  }
  return {"Slurm users", true,
          "Slurm accepts calls as " + join(accepted, ", ") + " (" + how + ")" +
              (accounting ? "" : "; no accounting: no association to check"),
          ""};
}

}  // namespace tpslurm::slurm
