// tuneplane-slurm submit REQUEST.json [--json]
// tuneplane-slurm submit --sweep SWEEP.json [--json]
//
// Validates the request and journals the job as a desire to run; the daemon does the rest.
// Idempotent by job_id: the same request (its canonical JSON without credentials) again is a
// no-op with exit 0; a different request under the same job_id is a conflict, exit 2. With
// --sweep the file is a sweep, journaled with its runs' jobs (sweep_commands.h).
#include <CLI/CLI.hpp>
#include <boost/json.hpp>

#include "cli/commands.h"
#include "cli/context.h"
#include "cli/exit_codes.h"
#include "cli/inputs.h"
#include "cli/sweep_commands.h"
#include "journal/journal.h"
#include "operations/submission.h"
#include "storage/secret_key.h"

namespace tpslurm::cli {
namespace {

struct SubmitOptions {
  std::string request;
  bool sweep = false;
  bool json = false;
};

int report(Context& context, const SubmitOptions& options, const std::string& job_id, std::string_view outcome,
           const std::string& hash) {
  if (options.json) {
    context.out() << boost::json::serialize(
                         boost::json::object{{"job_id", job_id}, {"outcome", outcome}, {"request_sha256", hash}})
                  << "\n";
  } else if (outcome == "created") {
    context.out() << job_id << ": submitted (queued); request sha256 " << hash << "\n";
  } else {
    context.out() << job_id << ": already submitted with this request; nothing changed\n";
  }
  return kExitOk;
}

int run_submit(Context& context, const SubmitOptions& options) {
  if (options.sweep) return run_submit_sweep(context, options.request, options.json);
  const model::Settings* settings = context.settings();
  if (settings == nullptr) return kExitBadInput;
  auto catalogs = load_catalogs(*settings, "submit");
  if (!catalogs.ok()) return context.fail(catalogs.error());
  auto request = load_request(options.request, *catalogs, *settings);
  if (!request.ok()) return context.fail(request.error(), options.request);
  if (settings->storage_root.empty()) {
    return context.fail(
        invalid_argument("TUNEPLANE_STORAGE_ROOT is not set; `submit` stores the job's ingest credential under it"));
  }
  int exit_code = kExitOk;
  auto journal = context.open_journal(Context::Access::write, exit_code);
  if (!journal) return exit_code;
  auto key = storage::load_state_key(settings->state_dir);
  if (!key.ok()) return context.fail(key.error());
  auto submitted =
      operations::submit_job(*journal, *settings, {*request, model::owner_of(*request, catalogs->users.get()), ""}, *key);
  if (!submitted.ok()) return context.fail(submitted.error());
  if (submitted->outcome == model::SubmitOutcome::conflict ||
      submitted->outcome == model::SubmitOutcome::over_limit) {
    return context.fail(invalid_argument(submitted->refusal));
  }
  return report(context, options, request->job_id,
                submitted->outcome == model::SubmitOutcome::created ? "created" : "unchanged",
                submitted->request_sha256);
}

}  // namespace

void add_submit_command(CLI::App& app, Context& context, int& exit_code) {
  auto options = std::make_shared<SubmitOptions>();
  CLI::App* command =
      app.add_subcommand("submit", "Validate a LaunchRequest and journal the job (idempotent by job_id)");
  add_version_flag(*command);
  command->add_option("REQUEST", options->request, "LaunchRequest JSON file (a sweep with --sweep), or - for stdin")
      ->required();
  command->add_flag("--sweep", options->sweep, "REQUEST is a sweep: a base LaunchRequest and its runs");
  command->add_flag("--json", options->json, "Print the result as JSON");
  command->callback([&context, &exit_code, options] { exit_code = run_submit(context, *options); });
}

}  // namespace tpslurm::cli
