#include "job_store.h"

#include <algorithm>
#include <utility>

#include "slurm_errors.h"

namespace tpslurm::sim {

namespace {
constexpr std::int64_t kUnlimitedRunSeconds = 365LL * 24 * 3600;  // end_time of a job without limit
constexpr int kSigTerm = 15;

std::int64_t to_s(std::int64_t ms) { return ms / 1000; }

// The wait status and the reason a job ends with in `target`, as Slurm gives them, before the
// change's own signal, exit code or reason.
std::pair<std::int32_t, std::string> ending_of(const JobRecord& record, BaseState target, const StateChange& change) {
  std::int32_t status = 0;
  std::string reason = record.state_reason;
  switch (target) {
    case BaseState::completed:
      status = wait_status_exited(change.exit_code.value_or(0));
      reason = "None";
      break;
    case BaseState::failed:
      status = wait_status_exited(change.exit_code.value_or(1));
      reason = "NonZeroExitCode";
      break;
    case BaseState::cancelled: status = record.allocated ? wait_status_signaled(kSigTerm) : 0; break;
    case BaseState::timeout:
      status = wait_status_signaled(kSigTerm);
      reason = "TimeLimit";
      break;
    case BaseState::node_fail: reason = "NodeDown"; break;
    case BaseState::out_of_memory:
      status = wait_status_signaled(kSigKill);
      reason = "OutOfMemory";
      break;
    case BaseState::preempted: status = wait_status_signaled(kSigTerm); break;
    default: break;
  }
  return {status, reason};
}

}  // namespace

JobStore::JobStore(SimClock& clock, const ClusterConfig& cluster, Timing timing, std::int64_t min_job_age_s,
                   std::uint32_t first_job_id, std::uint16_t cluster_id)
    : m_clock(clock),
      m_cluster(cluster),
      m_timing(timing),
      m_min_job_age_s(min_job_age_s),
      m_sluids(cluster_id),
      m_next_id(first_job_id),
      m_last_job_update(clock.now_s()),
      m_last_backfill(clock.now_s()) {}

void JobStore::touch(std::int64_t at_ms) { m_last_job_update = std::max(m_last_job_update, to_s(at_ms)); }

void JobStore::index(const JobPtr& record) {
  record->created_seq = m_archive.size();
  m_jobs[record->job_id] = record;
  m_by_sluid[record->sluid] = record;
  m_archive.push_back(record);
  m_archive_by_id.emplace(record->job_id, record);
  m_archive_by_name.emplace(record->name, record);
}

std::uint32_t JobStore::submit(std::vector<JobRecord> components) {
  tick();
  const std::int64_t now_ms = m_clock.now_ms();
  const std::int64_t now_s = to_s(now_ms);
  // slurmctld skips ids still in use (possible after a reset that kept the jobs).
  while (m_jobs.count(m_next_id) || (components.size() > 1 && m_jobs.count(m_next_id + 1))) ++m_next_id;
  const std::uint32_t leader = m_next_id;
  const auto size = static_cast<std::uint32_t>(components.size());
  for (std::uint32_t k = 0; k < size; ++k) {
    auto record = std::make_shared<JobRecord>(std::move(components[k]));
    record->job_id = m_next_id++;
    if (!record->array_pending.empty()) record->array_job_id = record->job_id;
    if (size > 1) {
      record->het_job_id = leader;
      record->het_job_offset = k;
      record->het_size = size;
    }
    record->sluid = m_sluids.next(now_ms);
    record->original_sluid = record->sluid;
    record->submit_time = now_s;
    record->eligible_time = now_s;
    record->accrue_time = record->hold ? 0 : now_s;
    record->last_sched_eval = now_s;
    record->state = BaseState::pending;
    if (record->hold) {
      record->state_reason = "JobHeldUser";
    } else if (record->state_reason.empty()) {
      record->state_reason = "None";
    }
    record->priority = record->hold ? 0 : 1;
    record->phase_since_ms = now_ms;
    record->in_controller = true;
    index(record);
    reschedule(*record, now_ms);
  }
  m_counters.submitted += size;
  touch(now_ms);
  return leader;
}

std::uint64_t JobStore::count_in_state(BaseState state) const {
  return static_cast<std::uint64_t>(
      std::count_if(m_jobs.begin(), m_jobs.end(), [&](const auto& entry) { return entry.second->state == state; }));
}

JobRecord* JobStore::find(std::uint32_t job_id) {
  auto it = m_jobs.find(job_id);
  return it == m_jobs.end() ? nullptr : it->second.get();
}

JobRecord* JobStore::find_sluid(std::uint64_t sluid) {
  auto it = m_by_sluid.find(sluid);
  return it == m_by_sluid.end() ? nullptr : it->second.get();
}

std::vector<JobRecord*> JobStore::het_group(const JobRecord& record) {
  if (!record.is_het()) return {const_cast<JobRecord*>(&record)};
  std::vector<JobRecord*> out;
  for (std::uint32_t k = 0; k < record.het_size; ++k) {
    JobRecord* member = find(record.het_job_id + k);
    if (member && member->het_job_id == record.het_job_id) out.push_back(member);
  }
  return out;
}

std::vector<JobRecord*> JobStore::records_for_get(JobRecord& record) {
  if (record.is_het_leader()) return het_group(record);
  if (record.array_job_id && record.array_job_id == record.job_id) return array_records(record.job_id);
  return {&record};
}

void JobStore::schedule(JobRecord& record, std::int64_t due_ms, EventKind kind) {
  m_events.emplace(due_ms, Event{record.job_id, record.generation, kind});
}

void JobStore::reschedule(JobRecord& record, std::int64_t now_ms) {
  record.generation = ++m_generation;
  if (!record.in_controller) return;
  const bool automatic = m_timing.automatic && record.auto_progress;
  switch (record.state) {
    case BaseState::pending:
      // slurmctld schedules a het job as a whole: one held component keeps all waiting.
      if (automatic && !group_held(record) && m_timing.pending_ms >= 0) {
        schedule(record, record.phase_since_ms + m_timing.pending_ms, EventKind::start);
      }
      return;
    case BaseState::running: {
      // The time limit is enforced even when nothing else moves by itself.
      std::int64_t due = -1;
      if (automatic && m_timing.running_ms >= 0) due = record.phase_since_ms + m_timing.running_ms;
      if (record.auto_progress && record.time_limit_min) {
        std::int64_t limit_due = record.phase_since_ms + std::int64_t{*record.time_limit_min} * 60'000;
        if (due < 0 || limit_due < due) due = limit_due;
      }
      if (due >= 0) schedule(record, std::max(due, now_ms), EventKind::finish);
      return;
    }
    case BaseState::suspended: return;
    default: break;
  }
  if (record.flags & state_flag::completing) {
    if (automatic && m_timing.completing_ms >= 0) {
      schedule(record, record.phase_since_ms + m_timing.completing_ms, EventKind::end_completing);
    }
    return;
  }
  // MinJobAge counts from the moment the job stopped holding anything.
  schedule(record, record.phase_since_ms + m_min_job_age_s * 1000, EventKind::purge);
}

bool JobStore::group_held(const JobRecord& record) {
  if (!record.is_het()) return record.hold;
  for (JobRecord* member : het_group(record)) {
    if (member->hold) return true;
  }
  return false;
}

int JobStore::set_hold(JobRecord& record, bool hold, std::uint32_t requester_uid, bool requester_privileged) {
  tick();
  if (!requester_privileged && record.user_id != requester_uid) return err::kUserIdMissing;
  if (is_finished(record.state)) return err::kJobFinished;
  const std::int64_t now_ms = m_clock.now_ms();
  std::vector<JobRecord*> targets{&record};
  if (m_cluster.whole_hetjob && record.is_het()) targets = het_group(record);
  if (hold) {
    if (record.priority == 0) return 0;
    for (JobRecord* target : targets) {
      target->hold = true;
      target->priority = 0;
      if (target->state == BaseState::pending) target->accrue_time = 0;
    }
    // _update_job() words the reason of the record it was asked about only.
    record.state_reason = requester_privileged ? "JobHeldAdmin" : "JobHeldUser";
  } else {
    if (record.priority != 0) return 0;  // "already released, ignoring request"
    if (!requester_privileged && record.state_reason != "JobHeldUser") return err::kAccessDenied;
    for (JobRecord* target : targets) {
      if (!target->hold && target->priority != 0) continue;
      target->hold = false;
      target->priority = 1;
      target->state_reason = "None";
      if (target->state == BaseState::pending) {
        if (!target->accrue_time) target->accrue_time = now_ms / 1000;
        target->phase_since_ms = now_ms;
      }
    }
  }
  touch(now_ms);
  // The whole group's start waits on its held components: reschedule every pending one.
  for (JobRecord* member : het_group(record)) {
    if (member->state == BaseState::pending) {
      if (!hold) member->phase_since_ms = now_ms;
      reschedule(*member, now_ms);
    }
  }
  return 0;
}

void JobStore::tick() {
  const std::int64_t now_ms = m_clock.now_ms();
  while (!m_events.empty() && m_events.begin()->first <= now_ms) {
    auto node = m_events.extract(m_events.begin());
    run_event(node.mapped(), node.key());
  }
}

void JobStore::run_event(const Event& event, std::int64_t at_ms) {
  JobRecord* record = find(event.job_id);
  if (!record || record->generation != event.generation) return;  // superseded
  switch (event.kind) {
    case EventKind::start:
      // Backfill never places two components of a het job on one node: with fewer nodes
      // than components the job waits for resources forever.
      if (record->is_het() && record->het_size > m_cluster.nodes.size()) {
        record->state_reason = "Resources";
        record->last_sched_eval = to_s(at_ms);
        return;
      }
      if (record->array_job_id && record->state == BaseState::pending) {
        start_array_tasks(*record, at_ms);
        return;
      }
      start(*record, at_ms);
      break;
    case EventKind::finish: {
      const bool automatic = m_timing.automatic && record->auto_progress;
      const bool completing = automatic && m_timing.completing_ms != 0;
      std::int64_t ran_ms = at_ms - record->phase_since_ms;
      if (record->time_limit_min && ran_ms >= std::int64_t{*record->time_limit_min} * 60'000) {
        record->state_reason = "TimeLimit";
        finish(*record, BaseState::timeout, wait_status_signaled(kSigTerm), completing, at_ms);
      } else if (record->planned_exit != 0) {
        record->state_reason = "NonZeroExitCode";
        finish(*record, BaseState::failed, wait_status_exited(record->planned_exit), completing, at_ms);
      } else {
        finish(*record, BaseState::completed, 0, completing, at_ms);
      }
      break;
    }
    case EventKind::end_completing:
      record->flags &= ~state_flag::completing;
      record->phase_since_ms = at_ms;
      touch(at_ms);
      break;
    case EventKind::purge: purge(event.job_id, at_ms); return;
  }
  reschedule(*record, at_ms);
}

std::string JobStore::node_for(const JobRecord& record) const {
  if (m_cluster.nodes.empty()) return "";
  std::size_t first = record.het_job_offset % m_cluster.nodes.size();
  std::size_t count = std::min<std::size_t>(std::max<std::uint32_t>(record.min_nodes, 1), m_cluster.nodes.size());
  std::string out;
  for (std::size_t i = 0; i < count; ++i) {
    if (!out.empty()) out += ",";
    out += m_cluster.nodes[(first + i) % m_cluster.nodes.size()];
  }
  return out;
}

void JobStore::start(JobRecord& record, std::int64_t at_ms) {
  const std::int64_t at_s = to_s(at_ms);
  record.state = BaseState::running;
  record.state_reason = "None";
  record.start_time = at_s;
  record.end_time = at_s + (record.time_limit_min ? std::int64_t{*record.time_limit_min} * 60 : kUnlimitedRunSeconds);
  record.last_sched_eval = at_s;
  if (!record.accrue_time) record.accrue_time = at_s;
  record.allocated = true;
  record.nodes = node_for(record);
  record.phase_since_ms = at_ms;
  ++m_counters.started;
  m_last_backfill = at_s;
  touch(at_ms);
}

void JobStore::finish(JobRecord& record, BaseState state, std::int32_t exit_status, bool completing,
                      std::int64_t at_ms) {
  if (state == BaseState::cancelled) {
    ++m_counters.canceled;
  } else if (state == BaseState::node_fail || state == BaseState::boot_fail) {
    ++m_counters.failed;
  } else if (record.allocated) {
    ++m_counters.completed;
  }
  record.state = state;
  record.exit_status = exit_status;
  record.end_time = to_s(at_ms);
  // A job that ends without having started (cancelled while pending, a deadline) gets its start
  // time set to its end, as slurmctld does (job_mgr.c _job_signal at slurm-22-05-8-1 and
  // slurm-26-05-3-1): a start time alone does not say that a job ran.
  if (!record.allocated) record.start_time = record.end_time;
  if (completing && record.allocated) {
    record.flags |= state_flag::completing;
  } else {
    record.flags &= ~state_flag::completing;
  }
  record.phase_since_ms = at_ms;
  touch(at_ms);
  if (record.allocated) wake_array(record, at_ms);
}

void JobStore::purge(std::uint32_t job_id, std::int64_t at_ms) {
  auto it = m_jobs.find(job_id);
  if (it == m_jobs.end()) return;
  it->second->in_controller = false;
  m_by_sluid.erase(it->second->sluid);
  m_jobs.erase(it);
  touch(at_ms);
}

KillResult JobStore::kill(JobRecord& record, int signal, std::uint32_t requester_uid, bool requester_privileged) {
  tick();
  if (!requester_privileged && record.user_id != requester_uid) return KillResult::denied;
  if (record.is_het() && !record.is_het_leader() && record.state == BaseState::pending) {
    return KillResult::pending_het_component;
  }
  std::vector<JobRecord*> targets = record.is_het_leader() ? het_group(record) : std::vector<JobRecord*>{&record};
  // The master's id signals the whole array: its record first, then every split task.
  if (record.array_job_id && record.array_job_id == record.job_id) targets = array_records(record.job_id);
  return signal_records(targets, signal, requester_uid);
}

KillResult JobStore::signal_records(const std::vector<JobRecord*>& targets, int signal, std::uint32_t requester_uid) {
  bool all_done = std::all_of(targets.begin(), targets.end(), [](JobRecord* r) { return is_finished(r->state); });
  if (all_done) return KillResult::already_done;
  const std::int64_t now_ms = m_clock.now_ms();
  if (signal != kSigKill) {
    KillResult result = KillResult::signalled;
    for (JobRecord* target : targets) {
      if (target->state == BaseState::running) {
        target->last_signal = signal;
      } else {
        result = is_finished(target->state) ? KillResult::already_done : KillResult::not_running;
      }
    }
    return result;
  }
  for (JobRecord* target : targets) {
    if (is_finished(target->state)) continue;
    // scancel sends SIGTERM first: a running batch script dies of signal 15.
    const bool was_running = target->allocated;
    const bool completing = was_running && m_timing.automatic && target->auto_progress && m_timing.completing_ms != 0;
    target->kill_request_uid = requester_uid;
    finish(*target, BaseState::cancelled, was_running ? wait_status_signaled(kSigTerm) : 0, completing, now_ms);
    reschedule(*target, now_ms);
  }
  return KillResult::signalled;
}

Status JobStore::apply(JobRecord& record, const StateChange& change) {
  tick();
  const std::int64_t now_ms = m_clock.now_ms();
  const std::string who = "job " + std::to_string(record.job_id);
  if (change.auto_progress) record.auto_progress = *change.auto_progress;  // before the rest is scheduled
  if (change.update_db) {
    if (*change.update_db) {
      record.flags |= state_flag::update_db;
    } else {
      record.flags &= ~state_flag::update_db;
    }
    touch(now_ms);
  }
  Status moved = ok_status();
  if (change.state) {
    const BaseState target = *change.state;
    const bool live = target == BaseState::pending || target == BaseState::running || target == BaseState::suspended;
    moved = live ? move_to_live(record, change, who, now_ms) : move_to_end(record, change, who, now_ms);
  } else if (change.completing) {
    moved = set_completing(record, *change.completing, who, now_ms);
  } else if (change.reason) {
    record.state_reason = *change.reason;
    touch(now_ms);
  }
  if (!moved.ok()) return moved;
  if (change.expected_start) {
    if (record.state != BaseState::pending) {
      return invalid_argument(who + " is " + std::string(base_state_name(record.state)) +
                              "; only a pending job has an expected start");
    }
    record.start_time = *change.expected_start;
    touch(now_ms);
  }
  reschedule(record, now_ms);
  return ok_status();
}

Status JobStore::move_to_live(JobRecord& record, const StateChange& change, const std::string& who,
                              std::int64_t now_ms) {
  if (is_finished(record.state)) {
    return invalid_argument(who + " already finished (" + std::string(base_state_name(record.state)) +
                            "); requeue it first");
  }
  if (*change.state == BaseState::pending) {
    record.state = BaseState::pending;
    record.allocated = false;
    record.nodes.clear();
    record.start_time = 0;
    record.end_time = 0;
    record.state_reason = change.reason.value_or("Priority");
    record.phase_since_ms = now_ms;
    touch(now_ms);
  } else if (*change.state == BaseState::running) {
    if (record.state != BaseState::running) start(record, now_ms);
    if (change.reason) record.state_reason = *change.reason;
  } else {
    if (record.state != BaseState::running)
      return invalid_argument(who + " is not RUNNING; only a running job can be suspended");
    record.state = BaseState::suspended;
    record.phase_since_ms = now_ms;
    touch(now_ms);
  }
  return ok_status();
}

Status JobStore::move_to_end(JobRecord& record, const StateChange& change, const std::string& who,
                             std::int64_t now_ms) {
  const BaseState target = *change.state;
  if (is_finished(record.state)) {
    return invalid_argument(who + " already finished (" + std::string(base_state_name(record.state)) + ")");
  }
  auto [status, reason] = ending_of(record, target, change);
  if (change.signal) status = wait_status_signaled(*change.signal);
  if (change.exit_code && target != BaseState::completed && target != BaseState::failed) {
    status = wait_status_exited(*change.exit_code);
  }
  record.state_reason = change.reason.value_or(reason);
  finish(record, target, status, change.completing.value_or(false), now_ms);
  if (change.completing.value_or(false)) record.flags |= state_flag::completing;
  return ok_status();
}

Status JobStore::set_completing(JobRecord& record, bool completing, const std::string& who, std::int64_t now_ms) {
  if (!is_finished(record.state)) {
    return invalid_argument(who + " is " + std::string(base_state_name(record.state)) +
                            "; COMPLETING only follows a finished state");
  }
  if (completing) {
    record.flags |= state_flag::completing;
  } else {
    record.flags &= ~state_flag::completing;
  }
  record.phase_since_ms = now_ms;
  touch(now_ms);
  return ok_status();
}

Status JobStore::requeue(JobRecord& record, bool force) {
  tick();
  if (!record.requeue && !force) {
    return invalid_argument("job " + std::to_string(record.job_id) +
                            " has requeue=false; Slurm would not requeue it (pass \"force\": true to do it anyway)");
  }
  const std::int64_t now_ms = m_clock.now_ms();
  for (JobRecord* member : het_group(record)) {
    m_by_sluid.erase(member->sluid);
    member->sluid = m_sluids.next(now_ms);  // a SLUID names one run: a requeue starts another
    JobPtr owner = m_jobs[member->job_id];
    m_by_sluid[member->sluid] = owner;
    member->state = BaseState::pending;
    member->flags = 0;
    member->restart_cnt += 1;
    member->allocated = false;
    member->nodes.clear();
    member->start_time = 0;
    member->end_time = 0;
    member->exit_status = 0;
    member->state_reason = "BeginTime";
    member->phase_since_ms = now_ms;
    reschedule(*member, now_ms);
  }
  touch(now_ms);
  return ok_status();
}

void JobStore::reset_ids(std::uint32_t next_id, bool forget_jobs) {
  tick();
  if (forget_jobs) {
    for (auto& [id, record] : m_jobs) record->in_controller = false;
    m_jobs.clear();
    m_by_sluid.clear();
    m_events.clear();
    m_array_tasks.clear();
  }
  m_next_id = next_id;
  touch(m_clock.now_ms());
}

std::vector<JobStore::JobPtr> JobStore::accounting_by_id(std::uint32_t job_id) const {
  std::vector<JobPtr> out;
  auto range = m_archive_by_id.equal_range(job_id);
  for (auto it = range.first; it != range.second; ++it) out.push_back(it->second);
  // slurmdbd matches id_job or id_array_job: the master's id brings every task's row.
  if (auto tasks = m_array_tasks.find(job_id); tasks != m_array_tasks.end()) {
    for (std::uint32_t id : tasks->second) {
      auto task_rows = m_archive_by_id.equal_range(id);
      for (auto it = task_rows.first; it != task_rows.second; ++it) {
        if (it->second->array_job_id == job_id) out.push_back(it->second);
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const JobPtr& a, const JobPtr& b) { return a->created_seq < b->created_seq; });
  return out;
}

std::vector<JobStore::JobPtr> JobStore::accounting_by_name(const std::string& name) const {
  std::vector<JobPtr> out;
  auto range = m_archive_by_name.equal_range(name);
  for (auto it = range.first; it != range.second; ++it) out.push_back(it->second);
  return out;
}

}  // namespace tpslurm::sim
