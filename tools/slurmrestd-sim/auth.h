// Authentication as slurmrestd (rest_auth/jwt) and slurmctld (auth/jwt) perform it.
//
// Two steps, because the real system splits them: slurmrestd only checks that the
// headers are there (22.05: both X-SLURM-USER-NAME and X-SLURM-USER-TOKEN, no Bearer;
// 23.02+: X-SLURM-USER-TOKEN or "Authorization: Bearer", not both, user name optional)
// and answers 401 otherwise; the token itself is verified later by slurmctld, whose
// failure each release reports differently (see slurm_api.cc). Verification: HS256 over
// the raw key bytes, `exp` required and not in the past (a missing exp reads as 0),
// user from `sun` (or `username`); a user-name header that differs from the token's
// user needs a token of root or SlurmUser. Tokens are never logged or echoed.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "http_types.h"
#include "release.h"

namespace tpslurm::sim {

struct Credentials {
  std::string token;
  std::string user_header;  // X-SLURM-USER-NAME, "" if absent
};

// False: slurmrestd rejects the request with 401 before routing it.
bool read_credentials(Release release, const HttpRequest& request, Credentials& out);

struct TokenCheck {
  bool ok = false;
  std::string user;    // the identity the request acts as
  std::string reason;  // why it failed (no secret material)
};

TokenCheck verify_token(std::string_view key, const Credentials& credentials, std::int64_t now_s,
                        std::string_view slurm_user);

// Numeric ids and primary group for a user name (root 0, nobody 65534, ...).
std::uint32_t uid_of(std::string_view user);
std::string group_of(std::string_view user);

std::string base64url_encode(std::string_view data);
bool base64url_decode(std::string_view text, std::string& out);

}  // namespace tpslurm::sim
