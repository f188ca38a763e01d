// The journal's view of jobs as the CLI's `--json` output and the platform API show them: one
// function per view, so `status JOB --json` and `GET /v1/jobs/{id}` are the same bytes.
// Reads only; thread-safe as the journal is. A job that does not exist is nullopt, not an
// error; journal failures are returned as they come.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "journal/journal.h"

namespace tpslurm::operations {

// One row of `status --json`: the job, whether it holds resources, its current attempt (or null).
boost::json::object job_row(const journal::JobRecord& job, const std::vector<journal::AttemptRecord>& attempts);

// `status JOB --json`: the job with every attempt.
Result<std::optional<boost::json::object>> job_status(journal::Journal& journal, std::string_view job_id);

// One page of jobs in job_id order, with the rows of `status --json`: those after `after`
// (a job id; empty: from the first), of `phase` when given, at most `limit`. `next` is the
// last id of the page when more jobs follow, else null.
struct JobPageQuery {
  std::optional<model::JobPhase> phase;
  std::size_t limit = 100;
  std::string after;
};
Result<boost::json::object> job_page(journal::Journal& journal, const JobPageQuery& query);

// `audit JOB --json`: the job's timeline, oldest first.
Result<std::optional<boost::json::array>> job_timeline(journal::Journal& journal, std::string_view job_id);

// What the CLI prints for a view and the API sends as its body: the JSON and a newline.
std::string json_text(const boost::json::value& value);

}  // namespace tpslurm::operations
