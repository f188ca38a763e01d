// Whose a job is, in the words `status` and `audit` print: ", user alice (runs as Unix user
// alice)" when its request named a user, the Unix user in per-user mode; empty otherwise.
#pragma once

#include <string>

#include "journal/records.h"

namespace tpslurm::cli {

inline std::string owner_words(const journal::JobRecord& job) {
  if (job.platform_user.empty()) return "";
  return ", user " + job.platform_user + (job.unix_user.empty() ? "" : " (runs as Unix user " + job.unix_user + ")");
}

}  // namespace tpslurm::cli
