// SlurmctldListing: the slurmctld half of the tag search (SlurmClient::find_jobs_by_tags;
// internal to src/slurm/, RestClient owns one).
//
// list() reads the records a search must compare with its tags, in one of two ways
// (SearchOptions has the why):
//   - full: `GET jobs`, every record. Its timeout fits its size: the request timeout plus
//     `per_job` for each job expected, the larger of the last full listing's count and the
//     last jobs/state count (26.05 took 1.28 s per 2,000 jobs, docs/slurm.md, *What a poll costs*).
//   - cheap (v0.0.4x, not `full`): `GET jobs/state` without a filter lists every id; the ids
//     neither known to the caller nor ruled out by ExaminedJobs are read by `GET job/{id}`,
//     ascending (a het leader's answer brings its components, which are then not read
//     again; an id gone since the listing is simply gone). More than `max_record_gets` of
//     them: the full listing instead. The report is never exhaustive.
// Every call goes as SearchOptions::as_user. Every record read in full is remembered in
// ExaminedJobs; every listing drops the ids it no longer shows (a listing as one user may
// show fewer jobs: the others are read again when asked for). Thread-safe: the cache is
// guarded and the counts are atomic.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/job_tag.h"
#include "slurm/dialect.h"
#include "slurm/examined_jobs.h"
#include "slurm/rest_call.h"
#include "slurm/slurm_client.h"

namespace tpslurm::slurm {

// One GET whose answer is a job list of `source`'s records, decoded as it arrives (never held
// whole): the call's result, the reply when the call was ok and the body held the list, and
// the bytes of the response body.
struct RecordsCall {
  CallResult call;
  std::optional<JobsReply> reply;
  std::int64_t bytes = 0;
  bool sent = false;  // the request left (not refused for want of budget or credentials)
};
// `as_user`: whose credentials the call carries (RestCaller::send); empty: the service identity's.
RecordsCall read_records(RestCaller& caller, const Dialect& codec, const std::string& target, RecordSource source,
                         std::optional<std::chrono::milliseconds> timeout = std::nullopt,
                         std::string_view as_user = {});

struct CtldRecords {
  SourceReport report;  // source slurmctld
  CallResult call;      // the failed call when report.outcome is not ok, else the last one (its release)
  std::vector<model::JobSnapshot> records;  // every record read in full, in the order read
  int calls = 0;
  std::int64_t bytes = 0;
  int record_gets = 0;
  bool full_listing = false;
};

class SlurmctldListing {
 public:
  SlurmctldListing(std::chrono::milliseconds request_timeout, std::chrono::milliseconds per_job)
      : m_request_timeout(request_timeout), m_per_job(per_job) {}

  CtldRecords list(RestCaller& caller, const Dialect& codec, std::span<const model::JobTag> tags,
                   const SearchOptions& options);

  // What the next full listing is given: request timeout + expected jobs x per job.
  std::chrono::milliseconds full_listing_timeout() const;
  const ExaminedJobs& examined() const { return m_examined; }

 private:
  CtldRecords full(RestCaller& caller, const Dialect& codec, bool exhaustive, const std::string& why,
                   std::string_view as_user);
  CtldRecords cheap(RestCaller& caller, const Dialect& codec, std::span<const model::JobTag> tags,
                    const SearchOptions& options);

  const std::chrono::milliseconds m_request_timeout;
  const std::chrono::milliseconds m_per_job;
  ExaminedJobs m_examined;
  std::atomic<std::int64_t> m_last_listing_count{0};
  std::atomic<std::int64_t> m_last_state_count{0};
};

}  // namespace tpslurm::slurm
