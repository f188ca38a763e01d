// tuneplane-slurm submit REQUEST.json [--json]
//
// Validates the request and journals the job as a desire to run; the daemon does the rest.
// Idempotent by job_id: the same request (its canonical JSON without credentials) again is a
// no-op with exit 0; a different request under the same job_id is a conflict, exit 2.
#include <CLI/CLI.hpp>
#include <boost/json.hpp>

#include "base/digest.h"
#include "base/file_system.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/exit_codes.h"
#include "cli/inputs.h"
#include "journal/journal.h"
#include "storage/job_credential.h"
#include "storage/secret_key.h"

namespace tpslurm::cli {
namespace {

struct SubmitOptions {
  std::string request;
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

  const std::string hash = sha256_hex(request->canonical_json);
  auto existing = journal->job(request->job_id);
  if (!existing.ok()) return context.fail(existing.error());
  if (existing->has_value()) {
    // The journal decides the outcome; the credential of a known job is never touched again.
    auto outcome = journal->add_job({request->job_id, request->canonical_json, hash, "", "", request->max_attempts});
    if (!outcome.ok()) return context.fail(outcome.error());
    return report(context, options, request->job_id, "unchanged", hash);
  }

  if (Status made = make_directories(settings->state_dir, 0700); !made.ok()) return context.fail(made.error());
  auto key = storage::load_or_create_secret_key(settings->state_dir + "/hmac.key");
  if (!key.ok()) return context.fail(key.error());
  auto credential = storage::write_job_credential(settings->storage_root, request->job_id,
                                                  request->ingest_token.value_or(""), *key, settings->storage_group);
  if (!credential.ok()) return context.fail(credential.error());
  auto outcome = journal->add_job(
      {request->job_id, request->canonical_json, hash, credential->path, credential->hmac, request->max_attempts});
  if (!outcome.ok()) return context.fail(outcome.error());
  return report(context, options, request->job_id,
                *outcome == journal::AddJobOutcome::created ? "created" : "unchanged", hash);
}

}  // namespace

void add_submit_command(CLI::App& app, Context& context, int& exit_code) {
  auto options = std::make_shared<SubmitOptions>();
  CLI::App* command =
      app.add_subcommand("submit", "Validate a LaunchRequest and journal the job (idempotent by job_id)");
  add_version_flag(*command);
  command->add_option("REQUEST", options->request, "LaunchRequest JSON file, or - for stdin")->required();
  command->add_flag("--json", options->json, "Print the result as JSON");
  command->callback([&context, &exit_code, options] { exit_code = run_submit(context, *options); });
}

}  // namespace tpslurm::cli
