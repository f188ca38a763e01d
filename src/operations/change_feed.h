// The change feed: the journal's events as the platform follows them — one list in sequence
// order for every job, each item naming the change it makes:
//   "phase"           the job's platform phase moved (job.created: to queued; job.phase)
//   "resources_held"  the job began holding Slurm resources (its submit went out: submitting)
//                     or stopped (its attempt's cleanup closed): `resources_held` true/false
//   "blocked"         a submission's answer was lost: nothing more is sent until it is found
//                     or resolved (attempt -> submit_unknown)
//   "unblocked"       that submission was found, adopted or resolved (submit_unknown -> ...)
//   "anomaly"         Slurm did something the job did not ask for (an anomaly or duplicate
//                     event); `reason` says what
//   "pending"         why a pending attempt waits: when it is first seen pending and Slurm
//                     has looked at it (a reason other than None, or an expected start), and
//                     when the reason changes or the expected start moves at the scale of the
//                     wait left (attempt.pending); with `explanation`, `what_to_change` and
//                     `expected_start` (record_json.h: wait_json)
// Other events (observations, searches, desires) are not items, but the page's `next` moves
// past them, so a client that passes `next` back as `after` never reads an event twice and
// never misses one: the sequence numbers are the journal's own (events.seq), which survive a
// restart of the daemon. Reads only; thread-safe as the journal is.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "journal/journal.h"

namespace tpslurm::operations {

// The change an event makes for the platform, or nothing for one the feed leaves out.
std::optional<std::string> feed_change(const journal::TimelineEntry& event);

// {"events": [...], "next": SEQ}: the items after `after`, at most `limit` (limit >= 1; each with seq,
// at, job_id, attempt, change, from, to, reason, slurm_job_id, sluid, and resources_held for
// that change); `next` is the sequence to ask after next time (`after` itself when nothing
// new was journaled).
Result<boost::json::object> feed_page(journal::Journal& journal, std::int64_t after, std::size_t limit);

}  // namespace tpslurm::operations
