#include "reconcile/prepare.h"

#include <sys/stat.h>

#include <boost/json.hpp>

#include "base/crash_point.h"
#include "base/digest.h"
#include "model/mount_source.h"
#include "render/render_request.h"
#include "storage/attempt_directory.h"
#include "storage/job_credential.h"
#include "storage/layout.h"
#include "storage/manifest.h"
#include "storage/mount_sources.h"

namespace tpslurm::reconcile {
namespace {

Error problems_error(const model::Problems& problems, std::string_view what) {
  return problems.to_error().with_context(what);
}

// The job credential to copy into the attempt, after checking it is the one journaled.
Result<std::string> credential_of(const Services& services, const journal::JobRecord& job) {
  if (job.credential_path.empty()) return std::string();
  struct stat info {};
  if (::stat(job.credential_path.c_str(), &info) == 0 && info.st_size == 0) return std::string();
  if (Status ok = storage::verify_job_credential({job.credential_path, job.credential_hmac}, services.hmac_key);
      !ok.ok()) {
    return ok.error().with_context("job " + job.job_id + "'s ingest credential");
  }
  return job.credential_path;
}

// The journal keeps the request without its credentials (they live in the job's credential
// file); the parser wants the object, so a placeholder stands in for it.
Result<model::LaunchRequest, model::Problems> parse_journaled(const std::string& canonical,
                                                              const render::RenderCatalogs& catalogs,
                                                              const model::Settings& settings) {
  boost::system::error_code error;
  boost::json::value value = boost::json::parse(canonical, error);
  if (error || !value.is_object()) {
    model::Problems problems;
    problems.add("request", "the journaled request is not a JSON object");
    return problems;
  }
  value.as_object()["credentials"] = {{"ingest_token", "kept in the job's credential file"}};
  auto parsed = render::parse_request(boost::json::serialize(value), catalogs, settings);
  if (parsed.ok()) parsed->ingest_token.reset();
  return parsed;
}

// The settings a job renders under. A per-user job (its Unix user journaled) is charged, when
// its request names no account, the account fixed for it at acceptance (its user's first), not
// TUNEPLANE_SLURM_ACCOUNT; and the site's QoS is not asked for it (its association's default
// is, unless the request names one the user may use).
model::Settings settings_for(const model::Settings& site, const journal::JobRecord& job) {
  model::Settings settings = site;
  if (job.unix_user.empty()) return settings;
  settings.account = job.default_account;
  settings.qos.clear();
  return settings;
}

}  // namespace

Result<render::RenderedAttempt> render_attempt_of(const Services& services, const journal::JobRecord& job,
                                                  const journal::AttemptRecord& attempt) {
  const model::Settings settings = settings_for(services.settings, job);
  const render::RenderCatalogs catalogs{services.catalogs.gpu_series, services.catalogs.runtimes};
  auto request = parse_journaled(job.request_json, catalogs, settings);
  if (!request.ok()) return problems_error(request.error(), "the journaled request no longer validates");
  auto mounts = storage::resolve_mount_sources(settings.storage_root, request->mounts,
                                               model::image_paths(services.catalogs.runtimes));
  if (!mounts.ok()) return problems_error(mounts.error(), "a mount source cannot be used");
  request->mounts = std::move(*mounts);
  auto credential = credential_of(services, job);
  if (!credential.ok()) return credential.error();

  model::AttemptInputs inputs =
      storage::attempt_inputs(settings, job.job_id, attempt.number, attempt.submit_token, *credential);
  inputs.unix_user = job.unix_user;
  auto rendered = render::render_parsed(*request, catalogs, settings, inputs);
  if (!rendered.ok()) return problems_error(rendered.error(), "the request no longer renders");
  return std::move(*rendered);
}

Result<PreparedFiles> write_attempt_of(const Services& services, const journal::AttemptRecord& attempt,
                                       const render::RenderedAttempt& rendered) {
  const std::string dir = storage::attempt_dir(services.settings.storage_root, attempt.job_id, attempt.number);
  auto written = storage::write_attempt_directory(dir, rendered.layout, services.hasher);
  if (!written.ok()) return written.error();
  crash_point("prepare.after_manifest");
  auto manifest = storage::read_manifest(dir);
  if (!manifest.ok()) return manifest.error();
  return PreparedFiles{dir, sha256_hex(rendered.script), sha256_hex(rendered.env_file),
                       sha256_hex(storage::manifest_json(*manifest))};
}

Status verify_prepared(const Services& services, const journal::AttemptRecord& attempt) {
  return storage::verify_manifest(attempt.attempt_dir, services.hasher, services.settings.storage_root);
}

}  // namespace tpslurm::reconcile
