#include "storage/job_credential.h"

#include <unistd.h>

#include <cerrno>

#include "base/digest.h"
#include "base/file_system.h"
#include "base/uuid.h"
#include "model/attempt_layout.h"
#include "storage/atomic_file.h"
#include "storage/layout.h"
#include "storage/storage_group.h"

namespace tpslurm::storage {
namespace {

constexpr std::size_t kMaxTokenBytes = 64 << 10;
// A credential written beside another is named after the first 16 hex digits of its HMAC.
constexpr std::size_t kBesideNameHex = 16;

Status check_existing(const CredentialRef& ref, std::string_view hmac_key, std::string_view what) {
  auto content = read_file(ref.path, kMaxTokenBytes);
  if (!content.ok()) return content.error();
  if (!constant_time_equal(hmac_sha256_hex(hmac_key, *content), ref.hmac)) {
    return corrupt(ref.path + " " + std::string(what));
  }
  return ok_status();
}

// The job's directories and its credential's content under a temporary name beside it, none of
// it flushed yet; returns the temporary name.
// In per-user mode the program's tree is made passable for every user and the job's directory
// is the service account's alone until its first attempt names the job's user in its ACL
// (attempt_directory.h).
Result<std::string> write_unnamed(std::string_view storage_root, std::string_view job_id, const std::string& path,
                                  std::string_view token, std::optional<gid_t> storage_group,
                                  model::IdentityMode identity) {
  const std::string job = job_dir(storage_root, job_id);
  if (identity == model::IdentityMode::per_user) {
    const unsigned tree = model::attempt_modes(model::FileAccess::per_user).tree;
    if (Status made = make_directories(parent_directory(job), tree, std::nullopt, Flush::later); !made.ok()) {
      return made.error();
    }
    storage_group = std::nullopt;
  }
  const unsigned job_mode = model::attempt_modes(storage_group.has_value() ? model::FileAccess::shared_group
                                                                           : model::FileAccess::owner_only)
                                .job;
  if (Status made = make_directories(job, job_mode, storage_group, Flush::later); !made.ok()) return made.error();
  if (Status made = make_directories(parent_directory(path), 0700, std::nullopt, Flush::later); !made.ok()) {
    return made.error();
  }
  std::string temporary = path + ".tmp-" + new_uuid();
  if (Status written = write_new_file(temporary, token, 0400, std::nullopt, Flush::later); !written.ok()) {
    return written.error();
  }
  return temporary;
}

// Links the flushed temporary file under `ref.path`, never over an existing file: true when it
// is there now with `ref`'s token (linked, or there already), false when another token is.
Result<bool> link_as(const std::string& temporary, const CredentialRef& ref, std::string_view hmac_key) {
  const int linked = ::link(temporary.c_str(), ref.path.c_str()) == 0 ? 0 : errno;
  if (linked == 0) return true;
  if (linked != EEXIST) return system_error("link to", ref.path, linked);
  Status same = check_existing(ref, hmac_key, "holds a different ingest token");
  if (same.ok()) return true;
  if (same.error().kind() != ErrorKind::corrupt) return same.error();
  return false;
}

// The flushed temporary file under the credential's name; when that holds another token (a
// credential a failed commit left, or another writer's racing for the same new job), beside it
// under a name of the token's own: a file is never replaced, since a job the journal holds may
// have copies of it in its attempts, and the journal records which file is the job's.
Result<CredentialRef> name_it(const std::string& temporary, CredentialRef ref, std::string_view job_id,
                              std::string_view hmac_key) {
  auto named = link_as(temporary, ref, hmac_key);
  if (named.ok() && !*named) {
    ref.path += "." + ref.hmac.substr(0, kBesideNameHex);
    named = link_as(temporary, ref, hmac_key);
  }
  ::unlink(temporary.c_str());
  if (!named.ok()) return named.error();
  if (!*named) {
    // Two tokens whose HMACs share their first 64 bits: never expected.
    return invalid_argument("job " + std::string(job_id) + ": " + ref.path + " holds another ingest token");
  }
  return ref;
}

// A failed flush: nothing of the batch may be relied on; the temporary files go.
std::vector<Result<CredentialRef>> fail_all(std::vector<Result<CredentialRef>>& results,
                                            const std::vector<std::string>& temporaries, const Error& error) {
  for (const std::string& temporary : temporaries) {
    if (!temporary.empty()) ::unlink(temporary.c_str());
  }
  for (auto& result : results) {
    if (result.ok()) result = error;
  }
  return std::move(results);
}

}  // namespace

Result<CredentialRef> write_job_credential(std::string_view storage_root, std::string_view job_id,
                                           std::string_view token, std::string_view hmac_key,
                                           const std::string& group, model::IdentityMode identity) {
  return std::move(
      write_job_credentials(storage_root, {{std::string(job_id), std::string(token)}}, hmac_key, group, identity)
          .front());
}

std::vector<Result<CredentialRef>> write_job_credentials(std::string_view storage_root,
                                                         const std::vector<CredentialRequest>& requests,
                                                         std::string_view hmac_key, const std::string& group,
                                                         model::IdentityMode identity) {
  std::vector<Result<CredentialRef>> results;
  if (requests.empty()) return results;
  auto storage_group = resolve_storage_group(group);
  if (!storage_group.ok()) {
    for (std::size_t i = 0; i < requests.size(); ++i) results.emplace_back(storage_group.error());
    return results;
  }
  std::vector<std::string> temporaries;
  for (const CredentialRequest& request : requests) {
    CredentialRef ref{job_credential_path(storage_root, request.job_id), hmac_sha256_hex(hmac_key, request.token)};
    auto temporary = write_unnamed(storage_root, request.job_id, ref.path, request.token, *storage_group, identity);
    results.emplace_back(temporary.ok() ? Result<CredentialRef>(std::move(ref))
                                        : Result<CredentialRef>(temporary.error()));
    temporaries.push_back(temporary.ok() ? std::move(*temporary) : std::string());
  }
  const std::string root(storage_root);
  if (Status flushed = flush_filesystem(root); !flushed.ok()) return fail_all(results, temporaries, flushed.error());
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (results[i].ok()) results[i] = name_it(temporaries[i], *results[i], requests[i].job_id, hmac_key);
  }
  if (Status flushed = flush_filesystem(root); !flushed.ok()) return fail_all(results, {}, flushed.error());
  return results;
}

Status verify_job_credential(const CredentialRef& ref, std::string_view hmac_key) {
  return check_existing(ref, hmac_key, "no longer holds the ingest token the journal recorded");
}

}  // namespace tpslurm::storage
