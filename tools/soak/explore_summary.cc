#include "explore_summary.h"

#include <cstdio>
#include <filesystem>
#include <set>

#include "explore_plant.h"
#include "output.h"

namespace tpslurm::soak {
namespace {

void tell(const std::string& line) {
  std::printf("explore: %s\n", line.c_str());
  std::fflush(stdout);
}

}  // namespace

std::string Summary::without() const {
  const auto& without = m_options.schedule.without;
  std::set<FaultKind> allowed;
  for (int k = 0; k < kFaultKinds; ++k) {
    if (without.count(static_cast<FaultKind>(k)) == 0) allowed.insert(static_cast<FaultKind>(k));
  }
  // The shorter of the two spellings.
  const bool only = !allowed.empty() && allowed.size() < without.size();
  std::string kinds;
  for (const auto kind : only ? allowed : without) kinds += std::string(kinds.empty() ? "" : ",") + fault_name(kind);
  return kinds.empty() ? std::string() : (only ? " --only " : " --without ") + kinds;
}

std::string Summary::replay(std::uint64_t seed) const {
  const auto& s = m_options.schedule;
  return m_program + " --seed " + std::to_string(seed) + " --seconds " + std::to_string(s.seconds) + " --jobs " +
         std::to_string(s.jobs) + " --min-faults " + std::to_string(s.min_faults) + " --max-faults " +
         std::to_string(s.max_faults) + " --drain-seconds " + std::to_string(m_options.drain_seconds) + " --grace " +
         fixed(m_options.grace_s, 0) + " --daemon " + m_options.daemon_binary + " --sim " + m_options.sim_binary +
         without() + (m_options.plant ? " --plant" : "");
}

// With --plant a schedule is as expected when it counts exactly the planted cases.
bool Summary::clean(const ScheduleResult& r) const {
  if (!m_options.plant) return r.status == 0;
  const auto& i = r.invariants;
  return r.status != 2 && i.duplicate_runs == Planted::duplicate_runs && i.runs_twice == Planted::runs_twice &&
         i.free_retries_of_a_run == Planted::free_retries_of_a_run && i.ended_without_running == 0 &&
         r.escapes_needed == Planted::escapes_needed && i.stuck == Planted::stuck && r.escapes_failed == 0 &&
         i.foreign_touched == Planted::foreign_touched && r.api_refusals == Planted::api_refusals &&
         r.late_kills == Planted::late_kills && r.daemon.slow_stops == 0 && r.other == 0;
}

void Summary::run(std::uint64_t seed) {
  const std::string dir = m_base + "/seed-" + std::to_string(seed);
  const ScheduleResult r = run_schedule(m_options, seed, dir);
  ++m_schedules;
  m_faults += r.schedule.faults;
  for (const auto& [kind, n] : r.faults_applied) m_faults_by_kind[kind] += n;
  for (const auto& [kind, n] : r.escapes_by_state) m_escapes[kind] += n;
  for (const auto& [state, n] : r.invariants.attempt_states) m_states[state] += n;
  const auto& i = r.invariants;
  m_duplicate_runs += i.duplicate_runs;
  m_runs_twice += i.runs_twice;
  m_free_retries += i.free_retries_of_a_run;
  m_ended += i.ended_without_running;
  m_needed += r.escapes_needed;
  m_stuck += i.stuck + r.escapes_failed;
  m_foreign += i.foreign_touched;
  m_api += r.api_refusals;
  m_late += r.late_kills;
  m_slow += r.daemon.slow_stops;
  m_other += r.other;
  m_stops += r.daemon.stops;
  m_worst_stop_s = std::max(m_worst_stop_s, r.daemon.worst_stop_s);
  if (r.status == 2) ++m_setup_failures;
  for (const auto& f : r.findings) tell("  " + f);
  const bool ok = clean(r);
  tell("seed " + std::to_string(seed) + ": " + std::to_string(i.attempts) + " attempts, " +
       std::to_string(i.slurm_jobs) + " Slurm jobs, " + std::to_string(r.daemon.kills) + " kills, " +
       std::to_string(r.daemon.stops) + " SIGTERMs (worst " + fixed(r.daemon.worst_stop_s, 2) + " s, " +
       std::to_string(r.daemon.unready_stops) + " before READY=1): " +
       (ok ? "clean" : "FAILED"));
  if (!ok) {
    ++m_failed_schedules;
    tell("  reproduce: " + replay(seed));
    tell("  kept " + dir);
  } else if (!m_keep) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
}

int Summary::finish() {
  std::string kinds;
  for (const auto& [kind, n] : m_faults_by_kind) kinds += " " + kind + "=" + std::to_string(n);
  tell("faults applied:" + (kinds.empty() ? std::string(" none") : kinds));
  std::string escapes;
  for (const auto& [kind, n] : m_escapes) escapes += " " + kind + "=" + std::to_string(n);
  tell("operator escapes accepted:" + (escapes.empty() ? std::string(" none") : escapes) + " (" +
       std::to_string(m_needed) + " needed where serve moves on by itself)");
  std::string states;
  for (const auto& [state, n] : m_states) states += " " + state + "=" + std::to_string(n);
  tell("attempts by state:" + states);
  tell("SIGTERM: " + std::to_string(m_stops) + " stops, the slowest " + fixed(m_worst_stop_s, 2) + " s (grace " +
       fixed(m_options.grace_s, 0) + " s)");
  tell(std::to_string(m_schedules) + " schedules, " + std::to_string(m_faults) + " faults, " +
       std::to_string(m_duplicate_runs) + " duplicate runs, " + std::to_string(m_runs_twice) + " runs twice, " +
       std::to_string(m_free_retries) + " free retries of a run, " + std::to_string(m_ended) +
       " ended without running, " + std::to_string(m_needed) + " escapes needed, " + std::to_string(m_stuck) +
       " stuck, " + std::to_string(m_foreign) + " foreign jobs touched, " + std::to_string(m_api) +
       " API refusals, " + std::to_string(m_late) + " late kills, " + std::to_string(m_slow) + " slow SIGTERMs, " +
       std::to_string(m_other) + " other findings");
  if (m_options.plant) tell(m_failed_schedules == 0 ? "the planted cases were counted, and nothing else"
                                                    : "the planted cases were not counted as planted");
  std::error_code ec;
  if (m_failed_schedules == 0 && !m_keep) std::filesystem::remove(m_base, ec);  // only when empty
  if (m_setup_failures > 0) return 2;
  return m_failed_schedules == 0 && m_schedules > 0 ? 0 : 1;
}

}  // namespace tpslurm::soak
