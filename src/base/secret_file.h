// The one rule for files that hold secrets (the JWT, the HS256 key, the platform's API
// tokens): a regular file at an absolute path, owned by the user that reads it and not
// writable by group or others. Readable by group or others is allowed with a warning (mounted
// secrets are often 0444), except for a signing key (Readers::owner_only): the cluster's JWT
// key signs tokens for any user, the power of root on the cluster, and is refused then. The settings loader applies it when it loads the settings; readers
// that re-read a secret file while running apply it again before every read.
// Pure apart from one stat(2); thread-safe.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

namespace tpslurm {

struct SecretFileCheck {
  std::optional<std::string> refusal;  // "what is expected", e.g. "is writable by group or others (mode 0664); ..."
  std::optional<std::string> warning;  // "<path> is readable by group or others (mode 0644); ..."
};

enum class Readers { owner_warned, owner_only };

SecretFileCheck check_secret_file(const std::string& path, uid_t reader_uid, Readers readers = Readers::owner_warned);

}  // namespace tpslurm
