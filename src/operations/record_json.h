// The journal's records as JSON, for the CLI's `--json` output and the platform API's answers.
// Empty strings and unset numbers become null, so machines need not guess.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string_view>

#include "journal/records.h"

namespace tpslurm::operations {

boost::json::object to_json(const journal::JobRecord& job, bool resources_held);
boost::json::object to_json(const journal::AttemptRecord& attempt);
boost::json::object to_json(const journal::TimelineEntry& entry);
boost::json::object to_json(const journal::BlockedEntry& entry);
boost::json::object to_json(const journal::OrphanEntry& entry);
boost::json::object to_json(const journal::MintRecord& mint);
boost::json::object to_json(const journal::CleanupEntry& entry);

// A wait as the platform reads it (docs/api.md, *Pending, explained*): Slurm's `reason`, its
// `explanation` and `what_to_change` (null when waiting is the only way; model/pending_reason.h).
boost::json::object wait_json(std::string_view reason);
// While the attempt is pending: {"expected_start" (null when Slurm has no estimate),
// "components": [{offset, reason, explanation, what_to_change}]}; else null. Also an
// attempt's `pending` field in to_json().
boost::json::value pending_json(const journal::AttemptRecord& attempt);

// Until an attempt's cleanup is closed, it still holds resources (an allocation finishing its
// epilog, staging on the shared filesystem).
bool resources_held(const std::vector<journal::AttemptRecord>& attempts);

}  // namespace tpslurm::operations
