// Preparing an attempt (docs/architecture.md §4 step 1): the job's journaled request, rendered for
// this attempt's number, token and directory, and the attempt directory written with its
// manifest last.
//
// render_attempt_of() is deterministic (same request, settings, catalogs and mount targets
// give the same bytes), so a prepared attempt is rendered again before a later pass submits
// it rather than stored twice (a pass that prepares and submits keeps its render); the files
// on disk are the authority for the script and must still match it.
// The job's ingest credential is verified against its HMAC before an attempt copies it.
//
// A request that no longer renders under the current settings or catalogs fails its attempt
// (with the renderer's words); a directory that cannot be written is a storage condition and
// is retried, except `corrupt` (a complete attempt with other content, or one a job already
// left evidence in), which needs an operator.
#pragma once

#include <string>

#include "base/result.h"
#include "journal/records.h"
#include "reconcile/services.h"
#include "render/renderer.h"

namespace tpslurm::reconcile {

Result<render::RenderedAttempt> render_attempt_of(const Services& services, const journal::JobRecord& job,
                                                  const journal::AttemptRecord& attempt);

struct PreparedFiles {
  std::string attempt_dir;
  std::string script_sha256;
  std::string env_sha256;
  std::string manifest_sha256;
};

// Writes the rendered attempt directory (crash points attempt_dir.before_manifest inside
// storage, after every other file, then prepare.after_manifest here).
Result<PreparedFiles> write_attempt_of(const Services& services, const journal::AttemptRecord& attempt,
                                       const render::RenderedAttempt& rendered);

// The job's prepared script still on disk and intact: the manifest re-verified (image too).
Status verify_prepared(const Services& services, const journal::AttemptRecord& attempt);

}  // namespace tpslurm::reconcile
