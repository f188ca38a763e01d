#include "operations/job_views.h"

#include <boost/json/serialize.hpp>

#include "operations/record_json.h"

namespace tpslurm::operations {

boost::json::object job_row(const journal::JobRecord& job, const std::vector<journal::AttemptRecord>& attempts) {
  boost::json::object row = to_json(job, resources_held(attempts));
  row["attempt"] = attempts.empty() ? boost::json::value(nullptr) : boost::json::value(to_json(attempts.back()));
  return row;
}

Result<std::optional<boost::json::object>> job_status(journal::Journal& journal, std::string_view job_id) {
  auto job = journal.job(job_id);
  if (!job.ok()) return job.error();
  if (!job->has_value()) return std::optional<boost::json::object>();
  auto attempts = journal.attempts(job_id);
  if (!attempts.ok()) return attempts.error();
  boost::json::object out = to_json(**job, resources_held(*attempts));
  boost::json::array list;
  for (const auto& attempt : *attempts) list.push_back(to_json(attempt));
  out["attempts"] = std::move(list);
  return std::optional<boost::json::object>(std::move(out));
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
