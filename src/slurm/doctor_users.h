// doctor's check of the Slurm side of per-user mode (`tuneplane-slurm doctor`, "Slurm users").
//
// For each mapped user that may run jobs, check_slurm_users() makes one authenticated call as
// that user, the way every call about its jobs goes: with TUNEPLANE_SLURM_JWT_KEY_FILE a token
// minted for it, with TUNEPLANE_SLURM_JWT_FILE the file's token and the user named in
// X-SLURM-USER-NAME. Refused, Slurm will not run or follow that user's jobs for this daemon:
// the key is not the cluster's jwt_key, the file's token is neither SlurmUser's nor root's, or
// slurmrestd's host does not know the user. With accounting it then reads, as the user, the
// user's associations in slurmdbd: none, or none for an account the map lets the user charge,
// is a failure (with AccountingStorageEnforce=associations Slurm refuses such a job; without it
// the job is charged no association of the user's, and fairshare and limits miss it). Without
// accounting there is nothing to read, and the line says so. One line for every user; each
// problem names its platform user, Unix user and the fix. Nothing here prints a token.
#pragma once

#include <span>

#include "model/settings.h"
#include "model/user_map.h"
#include "slurm/doctor.h"
#include "slurm/slurm_client.h"

namespace tpslurm::slurm {

// `accounting`: slurmdbd answers through slurmrestd (the "accounting" check).
DoctorCheck check_slurm_users(SlurmClient& client, const model::Settings& settings,
                              std::span<const model::MappedUser> users, bool accounting);

}  // namespace tpslurm::slurm
