// The daemon's local secret key (32 random bytes in `<state dir>/hmac.key`, mode 0600), used
// to HMAC secrets the journal must recognise but never store (the ingest credential).
// load_or_create_secret_key() creates it on first use (atomically: two processes racing get
// the same key) and refuses a key file that others can read or write.
#pragma once

#include <string>

#include "base/result.h"

namespace tpslurm::storage {

Result<std::string> load_or_create_secret_key(const std::string& path);

// The local key of a state directory: `state_dir` created (0700) if missing, then
// load_or_create_secret_key(state_dir + "/hmac.key"). Read once per process by its users.
Result<std::string> load_state_key(const std::string& state_dir);

}  // namespace tpslurm::storage
