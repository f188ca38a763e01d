#include "storage/job_credential.h"

#include "base/digest.h"
#include "model/attempt_layout.h"
#include "storage/atomic_file.h"
#include "storage/layout.h"
#include "storage/storage_group.h"

namespace tpslurm::storage {
namespace {

constexpr std::size_t kMaxTokenBytes = 64 << 10;

Status check_existing(const CredentialRef& ref, std::string_view hmac_key, std::string_view what) {
  auto content = read_file(ref.path, kMaxTokenBytes);
  if (!content.ok()) return content.error();
  if (!constant_time_equal(hmac_sha256_hex(hmac_key, *content), ref.hmac)) {
    return corrupt(ref.path + " " + std::string(what));
  }
  return ok_status();
}

}  // namespace

Result<CredentialRef> write_job_credential(std::string_view storage_root, std::string_view job_id,
                                           std::string_view token, std::string_view hmac_key,
                                           const std::string& group) {
  CredentialRef ref{job_credential_path(storage_root, job_id), hmac_sha256_hex(hmac_key, token)};
  auto storage_group = resolve_storage_group(group);
  if (!storage_group.ok()) return storage_group.error();
  const std::string job = job_dir(storage_root, job_id);
  const unsigned job_mode = model::attempt_modes(storage_group->has_value()).directory;
  if (Status made = make_directories(job, job_mode, *storage_group); !made.ok()) return made.error();
  const std::string dir = ref.path.substr(0, ref.path.find_last_of('/'));
  if (Status made = make_directories(dir, 0700); !made.ok()) return made.error();
  Status written = write_file_atomically(ref.path, token, 0400, Overwrite::no);
  if (written.ok()) return ref;
  if (written.error().kind() != ErrorKind::invalid_argument) return written.error();
  // Already there: the same token makes this a no-op; another token is a conflict.
  if (Status same = check_existing(ref, hmac_key, "holds a different ingest token"); !same.ok()) {
    return invalid_argument("job " + std::string(job_id) +
                            " already has a different ingest credential; a job's credential is written once");
  }
  return ref;
}

Status verify_job_credential(const CredentialRef& ref, std::string_view hmac_key) {
  return check_existing(ref, hmac_key, "no longer holds the ingest token the journal recorded");
}

}  // namespace tpslurm::storage
