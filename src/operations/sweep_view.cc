#include "operations/sweep_view.h"

#include <boost/json/array.hpp>
#include <map>

namespace tpslurm::operations {
namespace {

boost::json::value optional_text(const std::string& text) {
  if (text.empty()) return nullptr;
  return boost::json::value(text);
}

}  // namespace

Result<std::optional<boost::json::object>> sweep_status(journal::Journal& journal, std::string_view sweep_id) {
  auto sweep = journal.sweep(sweep_id);
  if (!sweep.ok()) return sweep.error();
  if (!sweep->has_value()) return std::optional<boost::json::object>{};
  const journal::SweepRecord& record = **sweep;
  std::map<std::string, std::int64_t> counts;
  boost::json::array runs;
  runs.reserve(record.runs.size());
  for (std::size_t i = 0; i < record.runs.size(); ++i) {
    const std::string phase(model::to_string(record.runs[i].phase));
    ++counts[phase];
    runs.push_back(boost::json::object{
        {"index", static_cast<std::int64_t>(i)}, {"job_id", record.runs[i].job_id}, {"phase", phase}});
  }
  boost::json::object phases;
  for (const auto& [phase, count] : counts) phases[phase] = count;
  return std::optional<boost::json::object>(boost::json::object{
      {"sweep_id", record.sweep_id},
      {"request_sha256", record.request_sha256},
      {"run_count", record.run_count},
      {"max_running", record.max_running ? boost::json::value(*record.max_running) : nullptr},
      {"user", optional_text(record.platform_user)},
      {"submitted_by", optional_text(record.submitted_by)},
      {"created_at", record.created_at},
      {"phases", std::move(phases)},
      {"runs", std::move(runs)}});
}

}  // namespace tpslurm::operations
