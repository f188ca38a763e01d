// A test's look into the journal of a `tuneplane-slurm` process it runs: opened read-only for
// each read (never migrated, never a write lock that could stall the daemon), on the system
// clock. An unreadable journal reads as nothing: the caller's expectation then fails.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "journal/journal.h"

namespace tpslurm::testing {

// The journal at `path` opened read-only, or null when it cannot be opened.
std::unique_ptr<journal::Journal> open_read_only(const std::string& path);

// Every attempt of `job_id`, in order; empty when there is none or the journal is unreadable.
std::vector<journal::AttemptRecord> journaled_attempts(const std::string& path, const std::string& job_id);

// The first attempt of `job_id`, if any.
std::optional<journal::AttemptRecord> first_attempt(const std::string& path, const std::string& job_id);

}  // namespace tpslurm::testing
