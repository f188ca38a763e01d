// An attempt's scheduler logs as `logs` and `GET /v1/jobs/{id}/logs` show them: the attempt
// picked from the journal (default: the newest), its directory (as journaled, else where the
// layout puts it) and its files read with the limits of storage/log_tail.h (per file the tail
// of at most 64 KiB and 2,000 lines, or one page from an offset).
//
// Errors: not_found for an unknown job or attempt (the message lists the attempts there are);
// invalid_argument for a component the attempt has no log of; the journal's and the
// manifest's own errors. A job without attempts, or an attempt whose directory was never
// written, is not an error (see JobLogs). A file that cannot be read is reported in its own
// entry. Reads only; thread-safe as the journal is.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "journal/journal.h"
#include "storage/attempt_logs.h"

namespace tpslurm::operations {

struct LogsQuery {
  std::string job_id;
  std::optional<int> attempt;    // unset: the newest
  std::optional<int> component;  // unset: every log; -1 the job's own
  storage::LogStream stream = storage::LogStream::out;
  std::optional<std::uint64_t> offset;  // unset: the tail
};

struct JobLogs {
  model::JobPhase phase = model::JobPhase::queued;  // the job's
  std::optional<journal::AttemptRecord> attempt;    // unset: the job has no attempt yet
  std::string dir;
  std::optional<Error> no_directory;  // set when the attempt's directory was never written
  std::vector<storage::AttemptLogFile> files;
};

Result<JobLogs> read_job_logs(journal::Journal& journal, std::string_view storage_root, const LogsQuery& query);

// "job J attempt N", the subject of the logs' messages.
std::string logs_subject(const LogsQuery& query, const journal::AttemptRecord& attempt);

// `logs --json`: the job, the attempt, its directory and every file with its limits' report.
boost::json::object logs_json(const LogsQuery& query, const JobLogs& logs);

}  // namespace tpslurm::operations
