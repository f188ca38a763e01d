#include "slurm/examined_jobs.h"

#include <algorithm>
#include <functional>
#include <string>

namespace tpslurm::slurm {

ExaminedJobs::Marks ExaminedJobs::marks_of(const model::JobTag& tag) {
  const std::hash<std::string> hash;
  return {hash(tag.name), hash(tag.comment), hash(tag.working_directory)};
}

void ExaminedJobs::remember(const model::JobSnapshot& job) {
  const Marks marks = marks_of(job.tag());
  std::lock_guard lock(m_mutex);
  m_jobs[job.job_id] = marks;
}

void ExaminedJobs::retain(std::span<const std::uint32_t> listed) {
  std::lock_guard lock(m_mutex);
  for (auto it = m_jobs.begin(); it != m_jobs.end();) {
    if (std::binary_search(listed.begin(), listed.end(), it->first)) {
      ++it;
    } else {
      it = m_jobs.erase(it);
    }
  }
}

ExaminedJobs::Verdict ExaminedJobs::check(std::uint32_t job_id, std::span<const Marks> tags) const {
  std::lock_guard lock(m_mutex);
  const auto it = m_jobs.find(job_id);
  if (it == m_jobs.end()) return Verdict::unknown;
  const Marks& job = it->second;
  for (const Marks& tag : tags) {
    const int equal = (job.name == tag.name) + (job.comment == tag.comment) + (job.directory == tag.directory);
    if (equal >= 2) return Verdict::might_match;
  }
  return Verdict::cannot_match;
}

std::size_t ExaminedJobs::size() const {
  std::lock_guard lock(m_mutex);
  return m_jobs.size();
}

}  // namespace tpslurm::slurm
