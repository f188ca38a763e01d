// The journal's records as JSON, for the CLI's `--json` output and the platform API's answers.
// Empty strings and unset numbers become null, so machines need not guess.
#pragma once

#include <boost/json/object.hpp>

#include "journal/records.h"

namespace tpslurm::operations {

boost::json::object to_json(const journal::JobRecord& job, bool resources_held);
boost::json::object to_json(const journal::AttemptRecord& attempt);
boost::json::object to_json(const journal::TimelineEntry& entry);
boost::json::object to_json(const journal::BlockedEntry& entry);
boost::json::object to_json(const journal::OrphanEntry& entry);
boost::json::object to_json(const journal::CleanupEntry& entry);

// Until an attempt's cleanup is closed, it still holds resources (an allocation finishing its
// epilog, staging on the shared filesystem).
bool resources_held(const std::vector<journal::AttemptRecord>& attempts);

}  // namespace tpslurm::operations
