// JobStore's job arrays (see job_store.h): the meta record of pending tasks, tasks split off
// as they start (job_mgr.c job_array_split at slurm-22-05-8-1 and slurm-26-05-3-1), the %P
// throttle, and the array's records as GET job/{master} returns them.
#include <algorithm>

#include "job_store.h"

namespace tpslurm::sim {

std::uint32_t JobStore::free_job_id() {
  while (m_jobs.count(m_next_id)) ++m_next_id;
  return m_next_id++;
}

JobRecord* JobStore::split_array_task(JobRecord& meta, std::uint32_t task, std::int64_t at_ms) {
  if (!meta.is_array_meta() || !meta.array_pending.count(task)) return nullptr;
  if (meta.array_pending.size() == 1) {
    // The last pending task lives on in the master's record.
    meta.array_pending.clear();
    meta.array_task_id = task;
    touch(at_ms);
    return &meta;
  }
  meta.array_pending.erase(task);
  // The split record copies the meta record (name, comment, hold, environment, ...).
  auto split = std::make_shared<JobRecord>(meta);
  split->array_pending.clear();
  split->array_task_id = task;
  split->job_id = free_job_id();
  split->sluid = m_sluids.next(at_ms);
  split->original_sluid = split->sluid;
  split->generation = 0;
  index(split);
  m_array_tasks[meta.job_id].push_back(split->job_id);
  if (meta.array_pending.size() == 1) {
    // job_array_split(): with one task left the record becomes that task.
    meta.array_task_id = *meta.array_pending.begin();
    meta.array_pending.clear();
  }
  reschedule(*split, at_ms);
  touch(at_ms);
  return split.get();
}

std::vector<JobRecord*> JobStore::array_records(std::uint32_t master_id) {
  std::vector<JobRecord*> out;
  if (JobRecord* master = find(master_id)) out.push_back(master);
  auto it = m_array_tasks.find(master_id);
  if (it == m_array_tasks.end()) return out;
  // The newest split task first, as slurmctld's array hash chain returns them.
  for (auto id_it = it->second.rbegin(); id_it != it->second.rend(); ++id_it) {
    JobRecord* task = find(*id_it);
    if (task && task->array_job_id == master_id) out.push_back(task);
  }
  return out;
}

JobRecord* JobStore::array_task(std::uint32_t master_id, std::uint32_t task) {
  tick();
  for (JobRecord* r : array_records(master_id)) {
    if (r->array_task_id && *r->array_task_id == task) return r;
  }
  JobRecord* master = find(master_id);
  if (!master || master->array_job_id != master_id) return nullptr;
  return split_array_task(*master, task, m_clock.now_ms());
}

KillResult JobStore::kill_array_task(std::uint32_t master_id, std::uint32_t task, int signal,
                                     std::uint32_t requester_uid, bool requester_privileged) {
  tick();
  for (JobRecord* r : array_records(master_id)) {
    if (r->array_task_id && *r->array_task_id == task) {
      // The task alone, also when it is the master's record (its last task).
      if (!requester_privileged && r->user_id != requester_uid) return KillResult::denied;
      return signal_records({r}, signal, requester_uid);
    }
  }
  JobRecord* meta = find(master_id);
  if (!meta || !meta->is_array_meta() || !meta->array_pending.count(task)) return KillResult::not_found;
  if (!requester_privileged && meta->user_id != requester_uid) return KillResult::denied;
  if (signal != kSigKill) return KillResult::not_running;
  const std::int64_t now_ms = m_clock.now_ms();
  meta->array_pending.erase(task);
  if (meta->array_pending.empty()) {
    meta->kill_request_uid = requester_uid;
    finish(*meta, BaseState::cancelled, 0, false, now_ms);
    reschedule(*meta, now_ms);
  }
  touch(now_ms);
  return KillResult::signalled;
}

std::uint32_t JobStore::running_array_tasks(std::uint32_t master_id) {
  std::uint32_t running = 0;
  for (JobRecord* r : array_records(master_id)) {
    if (r->array_task_id && (r->state == BaseState::running || r->state == BaseState::suspended)) ++running;
  }
  return running;
}

void JobStore::start_array_tasks(JobRecord& meta, std::int64_t at_ms) {
  // The scheduler starts the lowest pending tasks, as many as the throttle lets run.
  while (meta.is_array_meta() && !meta.array_pending.empty()) {
    if (meta.array_max_tasks && running_array_tasks(meta.job_id) >= meta.array_max_tasks) {
      meta.state_reason = "JobArrayTaskLimit";
      meta.last_sched_eval = at_ms / 1000;
      meta.generation = ++m_generation;  // waits until a task ends (wake_array)
      touch(at_ms);
      return;
    }
    JobRecord* task = split_array_task(meta, *meta.array_pending.begin(), at_ms);
    start(*task, at_ms);
    if (task != &meta) reschedule(*task, at_ms);
  }
  if (!meta.is_array_meta() && meta.state == BaseState::pending) {
    if (!meta.array_max_tasks || running_array_tasks(meta.job_id) < meta.array_max_tasks) {
      start(meta, at_ms);
    } else {
      meta.state_reason = "JobArrayTaskLimit";
      meta.generation = ++m_generation;
      return;
    }
  }
  reschedule(meta, at_ms);
}

void JobStore::note_array_throttle(std::uint32_t master_id) {
  JobRecord* meta = find(master_id);
  if (!meta || !meta->is_array_meta() || meta->array_pending.empty() || !meta->array_max_tasks) return;
  if (meta->state != BaseState::pending || running_array_tasks(master_id) < meta->array_max_tasks) return;
  meta->state_reason = "JobArrayTaskLimit";
  touch(m_clock.now_ms());
}

void JobStore::wake_array(const JobRecord& task, std::int64_t at_ms) {
  if (!task.array_job_id || !task.array_max_tasks) return;
  JobRecord* master = find(task.array_job_id);
  if (!master || master == &task || master->state != BaseState::pending || master->hold) return;
  if (master->state_reason != "JobArrayTaskLimit") return;
  master->generation = ++m_generation;
  schedule(*master, at_ms, EventKind::start);
}

}  // namespace tpslurm::sim
