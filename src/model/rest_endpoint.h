// Whether the JWT would cross the network unencrypted on its way to slurmrestd.
//
// The token goes in a header of every request. Over https:// or a unix: socket nobody on the
// way reads it; over http:// only a loopback host (127.0.0.0/8, ::1, "localhost") keeps it on
// this machine. With an explicit proxy and an http:// URL the proxy receives the request, token
// included, so its host counts too. Loading refuses such a setup unless the operator opts in
// with TUNEPLANE_SLURM_ALLOW_INSECURE_HTTP=1, the transport refuses it too, and `doctor`
// reports it. Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tpslurm::model {

// The host the token would reach in clear text, or nothing when it cannot: `rest_url` is
// https://, unix:, or http:// to a loopback host (with no proxy, or a loopback proxy).
// A URL that does not parse is treated as reaching its whole text (fail closed).
std::optional<std::string> cleartext_token_host(std::string_view rest_url, std::string_view proxy);

bool is_loopback_host(std::string_view host);

}  // namespace tpslurm::model
