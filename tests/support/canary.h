// Canary secrets: every secret a test creates (Slurm JWTs, HS256 keys, ingest tokens, the
// credential key, API bearer tokens, TLS key files) carries the marker kCanary, so that
// tools/secrets-scan can find a leaked one anywhere (a log, the journal, an attempt's env or
// script, a process's argv or environment) without knowing the secret itself. A JWT carries
// it as a claim (the scan knows its base64url forms). Values only; no state.
#pragma once

#include <string>

namespace tpslurm::testing {

inline constexpr const char* kCanary = "tpcanary";

// `what` made recognisable: "tpcanary-<what>".
inline std::string canary(const std::string& what) { return std::string(kCanary) + "-" + what; }

}  // namespace tpslurm::testing
