// Association: one of a user's associations in slurmdbd (`associations[]` of
// GET /slurmdb/vX/associations), as the dialects decode it and SlurmClient reports it.
#pragma once

#include <string>

namespace tpslurm::slurm {

struct Association {
  std::string account;    // the account the user may charge
  std::string partition;  // the partition it is limited to; empty: every partition
  bool operator==(const Association&) const = default;
};

}  // namespace tpslurm::slurm
