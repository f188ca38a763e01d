// Exit codes of every command.
#pragma once

#include "base/error.h"

namespace tpslurm::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;   // something operational went wrong (Slurm, disk, journal)
inline constexpr int kExitBadInput = 2;  // the input or the configuration must change

// invalid_argument and not_found are the caller's to fix (2); everything else is 1.
inline int exit_code_for(const Error& error) {
  return error.kind() == ErrorKind::invalid_argument || error.kind() == ErrorKind::not_found ? kExitBadInput
                                                                                               : kExitFailure;
}

}  // namespace tpslurm::cli
