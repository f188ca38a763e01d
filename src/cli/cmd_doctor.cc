// tuneplane-slurm doctor
//
// One line per check (configuration, secret files, token, slurmrestd, versions and release,
// an authenticated call, partitions, SLUID lifecycle, then whether the job user can use its
// attempts and nobody else can, and that it cannot change a runtime image), with the fix when
// it fails; exit 1 if any check failed.
#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/context.h"
#include "cli/exit_codes.h"
#include "cli/inputs.h"
#include "model/mount_source.h"
#include "slurm/curl_transport.h"
#include "slurm/doctor.h"
#include "storage/job_access.h"

namespace tpslurm::cli {
namespace {

slurm::DoctorCheck image_check(const model::Settings& settings) {
  auto catalogs = load_catalogs(settings, "doctor");
  if (!catalogs.ok()) {
    std::string problems = catalogs.error().to_text();
    while (!problems.empty() && problems.back() == '\n') problems.pop_back();
    return {"images", false, problems, "fix the catalogs (tuneplane-slurm validate names the same problems)"};
  }
  const storage::JobAccessCheck access =
      storage::check_image_access(settings, model::image_paths(catalogs->runtimes));
  return {"images", access.ok, access.detail, access.fix};
}

int run_doctor(Context& context) {
  const model::Settings* settings = context.settings();
  if (settings == nullptr) return kExitBadInput;
  auto transport = slurm::CurlTransport::create(slurm::transport_options(*settings));
  if (!transport.ok()) return context.fail(transport.error());
  auto checks = slurm::run_doctor(*settings, **transport, context.clock());
  const storage::JobAccessCheck access = storage::check_job_access(*settings);
  checks.push_back({"users and files", access.ok, access.detail, access.fix});
  checks.push_back(image_check(*settings));
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
