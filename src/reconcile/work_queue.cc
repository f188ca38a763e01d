#include "reconcile/work_queue.h"

namespace tpslurm::reconcile {

void WorkQueue::wake(const std::string& job) {
  if (m_running.count(job) != 0) {
    m_again.insert(job);
    return;
  }
  if (m_queued.insert(job).second) m_ready.push_back(job);
}

void WorkQueue::wake_at(const std::string& job, Time at) { m_later.emplace(at, job); }

std::optional<std::string> WorkQueue::next(Time now) {
  while (!m_later.empty() && m_later.begin()->first <= now) {
    wake(m_later.begin()->second);
    m_later.erase(m_later.begin());
  }
  if (m_ready.empty()) return std::nullopt;
  std::string job = m_ready.front();
  m_ready.pop_front();
  m_queued.erase(job);
  m_running.insert(job);
  return job;
}

void WorkQueue::done(const std::string& job) {
  m_running.erase(job);
  if (m_again.erase(job) != 0) wake(job);
}

}  // namespace tpslurm::reconcile
