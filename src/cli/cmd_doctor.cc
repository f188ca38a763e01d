// tuneplane-slurm doctor
//
// One line per check (configuration, secret files, token, slurmrestd, versions and release,
// an authenticated call, partitions, the GPU series against the nodes, accounting, SLUID
// lifecycle, then whether the job user can use its attempts and nobody else can (in per-user mode: whether the storage root keeps ACLs), that no
// job user (in per-user mode: no mapped Unix user) can change a runtime image, in per-user mode
// that every mapped Unix user may run jobs, and with the API configured its tokens file), with
// the fix when it fails, naming the step of docs/deploy.md that sets it up (model/deploy_guide.h);
// exit 1 if any check failed. A warning (a tokens line without scopes, a token file that expires
// within a day) is shown with its fix and fails nothing.
#include <unistd.h>

#include <vector>

#include <CLI/CLI.hpp>

#include "api/token_store.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/exit_codes.h"
#include "cli/inputs.h"
#include "cli/mint_journal.h"
#include "model/deploy_guide.h"
#include "model/mount_source.h"
#include "slurm/curl_transport.h"
#include "slurm/doctor.h"
#include "storage/job_access.h"
#include "storage/unix_user.h"

namespace tpslurm::cli {
namespace {

using model::DeployStep;

// The check with its fix (when it has one) pointing into docs/deploy.md.
slurm::DoctorCheck with_step(slurm::DoctorCheck check, DeployStep step) {
  if (!check.fix.empty()) check.fix = model::fix_with_step(std::move(check.fix), step);
  return check;
}

// The runtime images (and in per-user mode the user map) as the catalogs name them; catalogs
// that do not load fail each check that needs them. `runnable` gets, in per-user mode with a
// map that loads, the mapped users that may run jobs (for the Slurm side's check); `series` the
// GPU series catalog when the catalogs load (checked against the nodes).
std::vector<slurm::DoctorCheck> catalog_checks(const model::Settings& settings,
                                               std::optional<std::vector<model::MappedUser>>& runnable,
                                               std::optional<model::GpuSeriesCatalog>& series) {
  const bool per_user = settings.identity_mode == model::IdentityMode::per_user;
  auto catalogs = load_catalogs(settings, "doctor");
  if (!catalogs.ok()) {
    std::string problems = catalogs.error().to_text();
    while (!problems.empty() && problems.back() == '\n') problems.pop_back();
    const std::string fix = "fix the catalogs (tuneplane-slurm validate names the same problems)";
    std::vector<slurm::DoctorCheck> failed{with_step({"images", false, problems, fix}, DeployStep::configure_daemon)};
    if (per_user) failed.push_back(with_step({"user map", false, problems, fix}, DeployStep::configure_daemon));
    return failed;
  }
  series = catalogs->gpu_series;
  // Per-user mode: every mapped Unix user that may run jobs is a job user.
  std::vector<std::string> job_users{settings.rest_user};
  if (per_user && catalogs->users) {
    job_users.clear();
    runnable.emplace();
    for (const auto& [name, user] : catalogs->users->map.all()) {
      if (catalogs->users->refused.contains(name)) continue;
      job_users.push_back(user.unix_user);
      runnable->push_back(user);
    }
  }
  const storage::JobAccessCheck images =
      storage::check_image_access(settings, model::image_paths(catalogs->runtimes), job_users);
  std::vector<slurm::DoctorCheck> checks{
      with_step({"images", images.ok, images.detail, images.fix}, DeployStep::storage_root)};
  if (per_user && catalogs->users) {
    const storage::JobAccessCheck users = storage::check_user_map(catalogs->users->map, catalogs->users->refused);
    checks.push_back(with_step({"user map", users.ok, users.detail, users.fix}, DeployStep::configure_daemon));
  }
  return checks;
}

// The API's tokens file as `serve` would read it: refused, unreadable or a bad line fails (serve
// would not start); lines without scopes are a warning (each holds every scope).
slurm::DoctorCheck read_api_tokens(const model::Settings& settings) {
  constexpr const char* kName = "API tokens";
  auto file = api::read_tokens_file(settings.api_tokens_file, ::geteuid());
  if (!file.ok()) return {kName, false, file.error().message(), "fix the file: serve does not start with it"};
  if (!file->problems.empty()) {
    std::string problems;
    for (const auto& problem : file->problems) problems += (problems.empty() ? "" : "; ") + problem;
    return {kName, false, problems,
            "write each line as NAME TOKEN SCOPES: serve does not start with a bad line, and a running serve "
            "holds its token invalid"};
  }
  if (file->entries.empty()) {
    return {kName, false, settings.api_tokens_file + " holds no token: no client can use the API",
            "add a line NAME TOKEN SCOPES for each client"};
  }
  std::string detail = std::to_string(file->entries.size()) + " token(s): ";
  for (const auto& entry : file->entries) {
    detail += (&entry == &file->entries.front() ? "" : ", ") + entry.name + " (" + entry.scopes.text() + ")";
  }
  const std::string unscoped = file->unscoped_lines();
  if (unscoped.empty()) return {kName, true, detail, ""};
  return {kName, true, detail + "; lines " + unscoped + " name no scopes, so each holds every scope",
          "give each line the scopes its client needs, e.g. NAME TOKEN read for a scraper", true};
}

int run_doctor(Context& context) {
  const model::Settings* settings = context.settings();
  if (settings == nullptr) return kExitBadInput;
  auto transport = slurm::CurlTransport::create(slurm::transport_options(*settings));
  if (!transport.ok()) return context.fail(transport.error());
  // Each token doctor mints from the key is journaled, as serve's are.
  auto mints = MintJournal::open(*settings, context.clock());
  if (!mints.ok()) return context.fail(mints.error());
  std::optional<std::vector<model::MappedUser>> runnable;
  std::optional<model::GpuSeriesCatalog> series;
  std::vector<slurm::DoctorCheck> catalogs = catalog_checks(*settings, runnable, series);
  auto checks = slurm::run_doctor(*settings, **transport, context.clock(), runnable ? &*runnable : nullptr,
                                  (*mints)->listener(), series ? &*series : nullptr);
  const storage::JobAccessCheck access = storage::check_job_access(*settings);
  checks.push_back(with_step({"users and files", access.ok, access.detail, access.fix}, DeployStep::storage_root));
  for (auto& check : catalogs) checks.push_back(std::move(check));
  if (!settings->api_tokens_file.empty()) {
    checks.push_back(with_step(read_api_tokens(*settings), DeployStep::api_token));
  }
  context.out() << slurm::format_report(checks);
  return slurm::all_ok(checks) ? kExitOk : kExitFailure;
}

}  // namespace

void add_doctor_command(CLI::App& app, Context& context, int& exit_code) {
  CLI::App* command =
      app.add_subcommand("doctor", "Check the configuration, the token, slurmrestd and the partitions; say how to fix");
  add_version_flag(*command);
  command->callback([&context, &exit_code] { exit_code = run_doctor(context); });
}

}  // namespace tpslurm::cli
