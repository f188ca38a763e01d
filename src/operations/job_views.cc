#include "operations/job_views.h"

#include <algorithm>
#include <boost/json/serialize.hpp>

#include "operations/record_json.h"

namespace tpslurm::operations {

namespace {

// The fields of a job that its attempts decide: whether it holds resources, how many of its
// attempts the cluster ended (each one a retry of TUNEPLANE_INFRA_RETRIES, or the one that
// found them spent).
boost::json::object job_json(const journal::JobRecord& job, const std::vector<journal::AttemptRecord>& attempts) {
  boost::json::object out = to_json(job, resources_held(attempts));
  out["infra_failures"] = journal::infra_failures(attempts);
  return out;
}

}  // namespace

boost::json::object job_row(const journal::JobRecord& job, const std::vector<journal::AttemptRecord>& attempts) {
  boost::json::object row = job_json(job, attempts);
  row["attempt"] = attempts.empty() ? boost::json::value(nullptr) : boost::json::value(to_json(attempts.back()));
  return row;
}

Result<std::optional<boost::json::object>> job_status(journal::Journal& journal, std::string_view job_id) {
  auto job = journal.job(job_id);
  if (!job.ok()) return job.error();
  if (!job->has_value()) return std::optional<boost::json::object>();
  auto attempts = journal.attempts(job_id);
  if (!attempts.ok()) return attempts.error();
  boost::json::object out = job_json(**job, *attempts);
  boost::json::array list;
  for (const auto& attempt : *attempts) list.push_back(to_json(attempt));
  out["attempts"] = std::move(list);
  return std::optional<boost::json::object>(std::move(out));
}

Result<boost::json::object> job_page(journal::Journal& journal, const JobPageQuery& query) {
  auto jobs = journal.jobs();
  if (!jobs.ok()) return jobs.error();
  std::vector<const journal::JobRecord*> selected;
  for (const auto& job : *jobs) {
    if (job.job_id > query.after && (!query.phase || job.phase == *query.phase)) selected.push_back(&job);
  }
  // Job ids are the cursor: a page never repeats or skips a job, whatever is added meanwhile.
  std::sort(selected.begin(), selected.end(),
            [](const journal::JobRecord* a, const journal::JobRecord* b) { return a->job_id < b->job_id; });
  const std::size_t limit = std::max<std::size_t>(query.limit, 1);
  boost::json::array rows;
  for (std::size_t i = 0; i < selected.size() && i < limit; ++i) {
    auto attempts = journal.attempts(selected[i]->job_id);
    if (!attempts.ok()) return attempts.error();
    rows.push_back(job_row(*selected[i], *attempts));
  }
  const bool more = selected.size() > limit;
  return boost::json::object{
      {"jobs", std::move(rows)},
      {"next", more ? boost::json::value(selected[limit - 1]->job_id) : boost::json::value(nullptr)}};
}

Result<std::optional<boost::json::array>> job_timeline(journal::Journal& journal, std::string_view job_id) {
  auto job = journal.job(job_id);
  if (!job.ok()) return job.error();
  if (!job->has_value()) return std::optional<boost::json::array>();
  auto entries = journal.timeline(job_id);
  if (!entries.ok()) return entries.error();
  boost::json::array list;
  for (const auto& entry : *entries) list.push_back(to_json(entry));
  return std::optional<boost::json::array>(std::move(list));
}

std::string json_text(const boost::json::value& value) { return boost::json::serialize(value) + "\n"; }

}  // namespace tpslurm::operations
