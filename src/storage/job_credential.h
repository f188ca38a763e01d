// The job's ingest credential on the shared filesystem.
//
// At `submit` the platform's ingest token is written once, mode 0400, to
// `<root>/slurm/jobs/<job_id>/credentials/ingest_token` (layout.h). The journal keeps only the
// path and an HMAC-SHA-256 of the token under the daemon's local key (secret_key.h), never the
// token itself. Writing again with the same token is a no-op (idempotent submit). A file is
// never replaced, because attempts of the job may already hold copies: when the name holds a
// different token (left by a submission whose journal commit failed, or written by another
// writer racing for the same new job), the new token is written beside it, under the name
// followed by `.` and the first 16 hex digits of its HMAC, and that path is returned; the
// journal records which file is the job's. Callers write only for jobs the journal does not
// hold (operations/submission.h): a known job's credential is never written again.
// Each attempt later gets its own copy (render/storage of attempts), readable by the job user
// through `group` (TUNEPLANE_STORAGE_GROUP); this one stays the service account's alone, and
// the job's directory above it gets the group, so the job user can reach its attempts. In
// per-user mode (`identity`) there is no group: the tree above the jobs is passable for every
// user (0711) and the job's directory stays the service account's until its first attempt gives
// the job's user a way through (attempt_directory.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "model/settings.h"

namespace tpslurm::storage {

struct CredentialRef {
  std::string path;
  std::string hmac;  // hex HMAC-SHA-256 of the token under the local key

  bool operator==(const CredentialRef&) const = default;
};

Result<CredentialRef> write_job_credential(std::string_view storage_root, std::string_view job_id,
                                           std::string_view token, std::string_view hmac_key,
                                           const std::string& group = {},
                                           model::IdentityMode identity = model::IdentityMode::one_user);

// Many jobs' credentials at once (the API's submissions that arrive together), each as
// write_job_credential() writes it and as durable, with two flushes of the storage root's
// filesystem (syncfs) for all of them instead of a few fsyncs for each: the new directories
// and every file's content under a temporary name, one flush; then each file linked under its
// name (never over an existing one), one flush. A crash leaves no credential under its name
// without its content. One result per request, in order; the same job and token twice is
// written once.
struct CredentialRequest {
  std::string job_id;
  std::string token;
};
std::vector<Result<CredentialRef>> write_job_credentials(std::string_view storage_root,
                                                         const std::vector<CredentialRequest>& requests,
                                                         std::string_view hmac_key, const std::string& group = {},
                                                         model::IdentityMode identity = model::IdentityMode::one_user);

// The file still holds the token the HMAC was taken over (corrupt if not; not_found if gone).
Status verify_job_credential(const CredentialRef& ref, std::string_view hmac_key);

}  // namespace tpslurm::storage
