#include "cli/deployment.h"

#include <unistd.h>

namespace tpslurm::cli {
namespace {

// Open attempts (cleanup not closed) that `blocks` says are in the way, as "j1/2, j3/1".
Result<std::string> open_attempts(journal::Journal& journal, bool (*blocks)(const journal::AttemptRecord&)) {
  auto attempts = journal.all_attempts();
  if (!attempts.ok()) return attempts.error();
  std::string names;
  for (const auto& a : *attempts) {
    if (a.cleanup == model::CleanupStep::closed || !blocks(a)) continue;
    names += (names.empty() ? "" : ", ") + a.job_id + "/" + std::to_string(a.number);
  }
  return names;
}

}  // namespace

journal::Deployment configured_deployment(const model::Settings& settings) {
  return {settings.instance, settings.storage_root,
          settings.slurm_storage_root.empty() ? settings.storage_root : settings.slurm_storage_root};
}

std::optional<std::string> journal_instance(const std::string& journal_path, const Clock& clock) {
  if (::access(journal_path.c_str(), F_OK) != 0) return std::nullopt;
  journal::OpenOptions options;
  options.mode = journal::OpenOptions::Mode::read_only;
  auto journal = journal::Journal::open(journal_path, clock, options);
  if (!journal.ok()) return std::nullopt;
  auto recorded = (*journal)->deployment();
  if (!recorded.ok() || !recorded->has_value()) return std::nullopt;
  return (*recorded)->instance;
}

Status check_deployment(journal::Journal& journal, const model::Settings& settings) {
  const journal::Deployment configured = configured_deployment(settings);
  auto recorded = journal.deployment();
  if (!recorded.ok()) return recorded.error();
  if (!recorded->has_value()) {
    return journal.set_deployment(configured, "serve", "the journal's first start under this deployment");
  }
  if (**recorded == configured) return ok_status();
  // The instance differs only when TUNEPLANE_INSTANCE is set: unset, the journal's is used.
  std::string back;
  if ((*recorded)->instance != configured.instance) back = "Unset TUNEPLANE_INSTANCE (the journal's is then used)";
  if ((*recorded)->storage_root != configured.storage_root || (*recorded)->cluster_root != configured.cluster_root) {
    back +=
        std::string(back.empty() ? "Set" : ", set") + " TUNEPLANE_STORAGE_ROOT and TUNEPLANE_SLURM_STORAGE_ROOT back";
  }
  return invalid_argument("the journal belongs to the deployment with " + (*recorded)->describe() +
                          ", but this configuration says " + configured.describe() +
                          ": jobs already in Slurm carry the first. " + back +
                          ", or move the deployment: stop `serve`, then "
                          "`tuneplane-slurm journal move-deployment --reason TEXT` (the operator's guide, "
                          "\"Moving a deployment\")");
}

Result<std::string> move_deployment(journal::Journal& journal, const model::Settings& settings, std::string_view by,
                                    std::string_view reason) {
  const journal::Deployment to = configured_deployment(settings);
  auto recorded = journal.deployment();
  if (!recorded.ok()) return recorded.error();
  if (recorded->has_value() && **recorded == to) return "the journal's deployment is already " + to.describe();
  if (recorded->has_value()) {
    const journal::Deployment& from = **recorded;
    if (from.storage_root != to.storage_root || from.cluster_root != to.cluster_root) {
      auto in_the_way = open_attempts(journal, [](const journal::AttemptRecord&) { return true; });
      if (!in_the_way.ok()) return in_the_way.error();
      if (!in_the_way->empty()) {
        return invalid_argument("move-deployment: the storage root cannot change while attempts are open (" +
                                *in_the_way + "): their directories are under " + from.storage_root +
                                ". Let them end (`tuneplane-slurm pause`, then wait until `status` shows no "
                                "resources held), or keep the storage root");
      }
    }
    auto untagged = open_attempts(journal, [](const journal::AttemptRecord& a) { return a.tag_name.empty(); });
    if (!untagged.ok()) return untagged.error();
    if (from.instance != to.instance && !untagged->empty()) {
      return invalid_argument("move-deployment: attempts " + *untagged +
                              " were prepared before tags were journaled and would no longer be found under a new "
                              "instance name; let them end first, or keep TUNEPLANE_INSTANCE");
    }
  }
  if (Status set = journal.set_deployment(to, by, reason); !set.ok()) return set.error();
  return "the journal's deployment is now " + to.describe() +
         (recorded->has_value() ? " (was " + (*recorded)->describe() + ")" : "");
}

}  // namespace tpslurm::cli
