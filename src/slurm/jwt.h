// HS256 JSON Web Tokens as Slurm's auth/jwt plugin reads them.
//
// mint_hs256() writes header {"alg":"HS256","typ":"JWT"} and claims {"iat","exp","sun"},
// signed with HMAC-SHA-256 over the raw bytes of the key file (Slurm uses the whole file as
// the key). read_claims() decodes the claims of any token without checking its signature:
// the client only needs `exp` to know when to refresh and what `doctor` should report.
// Pure functions; thread-safe. Error messages never contain the token.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/result.h"

namespace tpslurm::slurm {

struct JwtClaims {
  std::string user;  // `sun`
  std::optional<std::int64_t> issued_at;   // `iat`, Unix seconds
  std::optional<std::int64_t> expires_at;  // `exp`, Unix seconds
};

std::string mint_hs256(std::string_view key, std::string_view user, TimePoint issued, std::chrono::seconds lifespan);

// invalid_argument when the text is not three base64url parts with a JSON object in the middle.
Result<JwtClaims> read_claims(std::string_view token);

// Why `token` cannot be a whole JWT, or nothing: three parts, a base64url JSON header, and a
// signature — for HS256 exactly 32 bytes, so a file caught half-written during a rotation is
// told apart from a token. Never quotes the token.
std::optional<std::string> token_shape_problem(std::string_view token);

// True when the signature is HS256 over `key`.
bool verify_hs256(std::string_view token, std::string_view key);

std::string base64url_encode(std::string_view data);
std::optional<std::string> base64url_decode(std::string_view text);

}  // namespace tpslurm::slurm
