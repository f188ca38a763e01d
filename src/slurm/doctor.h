// doctor: the checks behind `tuneplane-slurm doctor` (issue 4 "CLI").
//
// run_doctor() checks, in order: the configuration, whether the JWT would cross the network
// unencrypted (plain http:// to a host that is not loopback; a failure unless
// TUNEPLANE_SLURM_ALLOW_INSECURE_HTTP=1), the secret files' ownership and modes, that a token
// can be had and how long it stays valid, that the token is for TUNEPLANE_SLURM_REST_USER and
// not for root or a uid-0 user (SlurmUser cannot be learnt from slurmrestd, so it is not
// checked), that slurmrestd answers, which REST versions
// it offers and its release, that an authenticated call succeeds (`ping` is not one on 26.05),
// that the configured partitions exist, with the GPU series catalog whether the nodes have each
// series' features and GRES (doctor_nodes.h), whether slurmdbd answers (a cluster without accounting
// is a supported configuration: reported, not failed), and whether the SLUID lifecycle is
// available or identity is degraded to job id + tag, and in per-user mode, given the mapped
// users that may run jobs, whether Slurm lets this daemon act as each and holds each one's
// associations (doctor_users.h). Every check yields one line; a failed check carries
// the fix, which names the step of docs/deploy.md that sets the item up (model/deploy_guide.h)
// unless it points to another line. A token file's token that expires within a day is a
// warning (nothing in the daemon renews a file); a token the daemon mints from the key is
// renewed by the daemon, and its line says so. The CLI prints format_report() and exits 1 when
// any check failed.
//
// The transport is given (the CLI builds a CurlTransport from the same Settings; tests use a
// fake), the token source is built from Settings. Nothing here prints; no secret appears in a
// check's text. Not thread-safe; run it once.
#pragma once

#include <string>
#include <vector>

#include "base/clock.h"
#include "model/gpu_series.h"
#include "model/settings.h"
#include "model/user_map.h"
#include "slurm/jwt_source.h"
#include "slurm/transport.h"

namespace tpslurm::slurm {

struct DoctorCheck {
  std::string name;  // "token", "partitions", ...
  bool ok = false;
  std::string detail;    // what was found
  std::string fix;       // what to do; empty when ok (unless a warning)
  bool warning = false;  // ok, but something to change (`fix` says what); does not fail the run

  bool operator==(const DoctorCheck&) const = default;
};

// `mapped`: per-user mode's users that may run jobs (the user map's, less those refused);
// nullptr when there is no such check to make (one-user mode, or a map that did not load).
// `on_mint`: told of each token minted from the key (the CLI journals them, cli/mint_journal.h).
// `series`: the GPU series catalog, checked against the nodes' features and GRES
// (doctor_nodes.h); nullptr when it did not load (its own line says so).
std::vector<DoctorCheck> run_doctor(const model::Settings& settings, Transport& transport, const Clock& clock,
                                    const std::vector<model::MappedUser>* mapped = nullptr,
                                    MintingTokenSource::MintListener on_mint = {},
                                    const model::GpuSeriesCatalog* series = nullptr);

// "ok    token: valid for 29m40s (until 2026-11-30T12:51:08Z)" / "FAIL  ...; fix: ..." /
// "warn  ...; fix: ...", one per line.
std::string format_report(const std::vector<DoctorCheck>& checks);
bool all_ok(const std::vector<DoctorCheck>& checks);

}  // namespace tpslurm::slurm
