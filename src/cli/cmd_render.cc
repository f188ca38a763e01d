// tuneplane-slurm render REQUEST.json [--attempt-dir DIR] [--json]
//
// Shows what an attempt of the request would run: the batch script (with --json also the
// env file, the dialect-neutral submit description and the attempt manifest). Writes files
// only with --attempt-dir: the whole attempt directory, after resolving the mount sources'
// symlinks (the attempt binds their real paths) and checking the image's SHA-256, never over a
// complete attempt with other content. Bad requests get the same errors as
// `validate`. Nothing is journaled or submitted.
//
// The attempt's submit token is derived from the request and the directory (not random), so
// rendering the same request into the same directory again gives the same bytes; attempts
// the daemon makes get random tokens.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <boost/json.hpp>

#include "base/digest.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/exit_codes.h"
#include "cli/inputs.h"
#include "model/mount_source.h"
#include "render/render_request.h"
#include "render/submit_json.h"
#include "storage/attempt_directory.h"
#include "storage/layout.h"
#include "storage/memory_hash_cache.h"
#include "storage/mount_sources.h"

namespace tpslurm::cli {
namespace {

struct RenderOptions {
  std::string request;
  std::string attempt_dir;
  bool json = false;
};

// A UUID-shaped token (version 4 layout) from the request and where it is rendered.
std::string derived_token(const model::LaunchRequest& request, const std::string& dir) {
  std::string hex = sha256_hex("tuneplane-render\n" + request.canonical_json + "\n" + dir).substr(0, 32);
  hex[12] = '4';
  hex[16] = "89ab"[hex[16] % 4];
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" + hex.substr(16, 4) + "-" +
         hex.substr(20);
}

// Before `submit` no job credential exists; the attempt's copy then comes straight from the
// request (the same bytes `submit` would write).
model::AttemptLayout attempt_layout(const model::LaunchRequest& request, const model::AttemptInputs& inputs,
                                    model::AttemptLayout layout) {
  for (auto& file : layout.files) {
    if (file.copy_from == inputs.job_credential_path && request.ingest_token) {
      file.content = *request.ingest_token;
      file.copy_from.clear();
    }
  }
  return layout;
}

// Long image hashes show their progress on a terminal.
storage::HashProgress terminal_progress(Context& context) {
  if (::isatty(STDERR_FILENO) == 0) return {};
  return [&context](const std::string& path, std::uint64_t done, std::uint64_t total) {
    context.err() << "\rhashing " << path << ": " << storage::format_hash_progress(done, total)
                  << (done == total ? "\n" : "") << std::flush;
  };
}

int run_render(Context& context, const RenderOptions& options) {
  const model::Settings* settings = context.settings();
  if (settings == nullptr) return kExitBadInput;
  auto catalogs = load_catalogs(*settings, "render");
  if (!catalogs.ok()) return context.fail(catalogs.error());
  auto request = load_request(options.request, *catalogs, *settings);
  if (!request.ok()) return context.fail(request.error(), options.request);
  if (settings->storage_root.empty()) {
    return context.fail(invalid_argument("TUNEPLANE_STORAGE_ROOT is not set; attempts live under it"));
  }

  const std::string local_dir = options.attempt_dir.empty()
                                    ? storage::attempt_dir(settings->storage_root, request->job_id, 1)
                                    : options.attempt_dir;
  const model::AttemptInputs inputs = storage::attempt_inputs(
      *settings, request->job_id, 1, derived_token(*request, local_dir),
      request->ingest_token ? storage::job_credential_path(settings->storage_root, request->job_id) : std::string(),
      local_dir);
  // An attempt that is written binds what each mount source really is, symlinks resolved.
  if (!options.attempt_dir.empty()) {
    auto mounts =
        storage::resolve_mount_sources(settings->storage_root, request->mounts, model::image_paths(catalogs->runtimes));
    if (!mounts.ok()) return context.fail(mounts.error(), options.request);
    request->mounts = std::move(*mounts);
  }
  const render::RenderCatalogs render_catalogs{catalogs->gpu_series, catalogs->runtimes};
  auto rendered = render::render_parsed(*request, render_catalogs, *settings, inputs);
  if (!rendered.ok()) return context.fail(rendered.error(), options.request);
  const model::AttemptLayout layout = attempt_layout(*request, inputs, rendered->layout);

  bool written = false;
  if (!options.attempt_dir.empty()) {
    storage::MemoryHashCache cache;
    storage::ArtifactHasher hasher(cache, terminal_progress(context));
    auto outcome = storage::write_attempt_directory(inputs.local_attempt_dir, layout, hasher);
    if (!outcome.ok()) return context.fail(outcome.error());
    written = true;
    context.err() << "tuneplane-slurm: attempt "
                  << (*outcome == storage::WriteOutcome::already_complete ? "already complete in " : "written to ")
                  << inputs.local_attempt_dir << "\n";
  }

  if (!options.json) {
    context.out() << rendered->script;
    return kExitOk;
  }
  auto manifest = storage::attempt_manifest(layout);
  if (!manifest.ok()) return context.fail(manifest.error());
  boost::json::object out;
  out["job_id"] = request->job_id;
  out["attempt_dir"] = inputs.local_attempt_dir;
  out["cluster_attempt_dir"] = inputs.cluster_attempt_dir;
  out["written"] = written;
  out["script"] = rendered->script;
  out["env"] = rendered->env_file;
  out["command"] = rendered->command_file;
  out["submit_description"] = boost::json::parse(render::submit_description_json(rendered->submit));
  out["manifest"] = boost::json::parse(storage::manifest_json(*manifest));
  context.out() << boost::json::serialize(out) << "\n";
  return kExitOk;
}

}  // namespace

void add_render_command(CLI::App& app, Context& context, int& exit_code) {
  auto options = std::make_shared<RenderOptions>();
  CLI::App* command =
      app.add_subcommand("render", "Print the batch script of a LaunchRequest; with --attempt-dir write the attempt");
  add_version_flag(*command);
  command->add_option("REQUEST", options->request, "LaunchRequest JSON file, or - for stdin")->required();
  command
      ->add_option("--attempt-dir", options->attempt_dir,
                   "Write the attempt directory here (under TUNEPLANE_STORAGE_ROOT), after checking the image")
      ->type_name("DIR");
  command->add_flag("--json", options->json, "Print JSON: script, env and command files, submit description and manifest");
  command->callback([&context, &exit_code, options] { exit_code = run_render(context, *options); });
}

}  // namespace tpslurm::cli
