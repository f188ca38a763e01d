#include "slurm/server_info.h"

#include <charconv>
#include <cstdio>

namespace tpslurm::slurm {
namespace {

std::optional<int> number(std::string_view& text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  return value;
}

}  // namespace

std::optional<SlurmRelease> SlurmRelease::parse(std::string_view text) {
  SlurmRelease release;
  auto major = number(text);
  if (!major || text.empty() || text.front() != '.') return std::nullopt;
  text.remove_prefix(1);
  auto minor = number(text);
  if (!minor) return std::nullopt;
  release.major = *major;
  release.minor = *minor;
  if (!text.empty() && text.front() == '.') {
    text.remove_prefix(1);
    auto micro = number(text);
    if (!micro) return std::nullopt;
    release.micro = *micro;
  }
  // Pre-releases such as "26.05.0-0rc1" keep their numbers; anything else after is refused.
  if (!text.empty() && text.front() != '-') return std::nullopt;
  return release;
}

std::string SlurmRelease::to_string() const {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%d.%02d.%d", major, minor, micro);
  return buffer;
}

bool records_carry_sluid(std::string_view dialect) { return dialect == "v0.0.44" || dialect == "v0.0.45"; }

IdPolicy id_policy(const SlurmRelease& release, std::string_view dialect) {
  IdPolicy policy;
  policy.records_have_sluid = release >= SlurmRelease{25, 11, 0} && records_carry_sluid(dialect);
  policy.sluid_in_paths = policy.records_have_sluid && release >= SlurmRelease{26, 5, 0};
  if (policy.sluid_in_paths) {
    policy.refresh = RefreshBy::sluid;
    policy.cancel = CancelBy::leader_sluid;
  } else if (policy.records_have_sluid) {
    policy.refresh = RefreshBy::job_id_check_sluid;
    policy.cancel = CancelBy::job_id_after_sluid_check;
  }
  return policy;
}

ReleaseRules release_rules(const SlurmRelease& release) {
  ReleaseRules rules;
  // jobs.c: _op_handler_job_states is bound from slurm-23-11-5-1 on.
  rules.jobs_state = release >= SlurmRelease{23, 11, 5};
  // jobs.c: _handle_job_delete calls slurm_kill_jobs (a status per job) from slurm-24-11-0-1.
  rules.cancel_status_list = release >= SlurmRelease{24, 11, 0};
  // jobs.c@slurm-23-11-4-1 _job_post: "Populated \"script\" field is required".
  rules.submit_top_level_script = release >= SlurmRelease{23, 11, 0} && release < SlurmRelease{23, 11, 5};
  return rules;
}

ArrayTaskCancel array_task_cancel(const SlurmRelease& release) {
  if (release < SlurmRelease{23, 11, 0} || release >= SlurmRelease{24, 11, 0}) return ArrayTaskCancel::task_path;
  if (release >= SlurmRelease{23, 11, 7}) return ArrayTaskCancel::kill_jobs;
  return ArrayTaskCancel::none;
}

std::string_view to_string(ArrayTaskCancel how) {
  switch (how) {
    case ArrayTaskCancel::task_path: return "DELETE job/{M}_{t}";
    case ArrayTaskCancel::kill_jobs: return "DELETE jobs";
    case ArrayTaskCancel::none: return "none";
  }
  return "none";
}

SlurmRelease oldest_release_serving(std::string_view dialect) {
  if (dialect == "v0.0.40") return {23, 11, 0};
  if (dialect == "v0.0.41") return {24, 5, 0};
  if (dialect == "v0.0.42") return {24, 11, 0};
  if (dialect == "v0.0.43") return {25, 5, 0};
  if (dialect == "v0.0.44") return {25, 11, 0};
  if (dialect == "v0.0.45") return {26, 5, 0};
  return {22, 5, 0};
}

std::string IdPolicy::describe() const {
  if (sluid_in_paths) return "SLUID lifecycle available: jobs are refreshed and cancelled by SLUID";
  if (records_have_sluid)
    return "degraded: SLUIDs are recorded and checked, but lifecycle calls use job id (server older than 26.05)";
  return "degraded: identity is job id + tag (no SLUID in this server's or REST version's job records)";
}

}  // namespace tpslurm::slurm
