#include "explore_operator.h"

#include <algorithm>

namespace tpslurm::soak {
namespace {

constexpr double kSafeModeAfterStartS = 6;  // three poll intervals: serve has searched by then
constexpr double kLongestSpacingS = 300;    // RetryBoard: 5 s doubling, at most 5 minutes
constexpr double kFirstSpacingS = 5;
constexpr double kStepS = 2 * 2 + 6;  // two poll intervals (2 s) for the step and its commit, and a margin
constexpr double kUsageRoundS = 35;   // sealing: slurmdbd asked 5, 10 and 20 s apart before "no record"

// What serve does by itself where each needed escape would step in (docs/architecture.md §5).
constexpr const char* kConcludesForgotten = "serve concludes a job slurmctld no longer holds by itself";
constexpr const char* kFindsCopy = "serve's search finds a copy slurmctld holds with the attempt's tag";
constexpr const char* kClosesCleanup = "serve moves every cleanup step on by itself";

}  // namespace

double Operator::patience(double age_s, const std::string& cleanup) {
  const double spacing = std::min(std::max(age_s, 0.0) + kFirstSpacingS, kLongestSpacingS);
  return spacing + kStepS + (cleanup == "sealing" ? kUsageRoundS : 0);
}

void Operator::observe() {
  auto rows = m_world.journal.attempts();
  if (!rows.ok()) return;
  for (const auto& a : *rows) {
    if (a.number > 0) m_first_seen.emplace(a.job_id + "/" + std::to_string(a.number), Steady::now());
  }
}

void Operator::tick(const std::vector<SimJob>& jobs) {
  controls();
  std::map<std::string, const SimJob*> in_controller;
  for (const auto& job : jobs) {
    if (job.in_controller) in_controller[job.name] = &job;
  }
  auto rows = m_world.journal.attempts();
  if (!rows.ok()) return;
  for (const auto& a : *rows) {
    if (a.number == 0) continue;
    const std::string key = a.job_id + "/" + std::to_string(a.number);
    m_first_seen.emplace(key, Steady::now());
    check(key, a.state + "|" + a.cleanup);
    attempt(a, in_controller);
  }
}

void Operator::controls() {
  struct Control {
    const char* name;
    const char* escape;
    std::vector<std::string> args;
  };
  const Control all[] = {
      {"safe_mode", "journal clear-safe-mode",
       {"journal", "clear-safe-mode", "--reason", "explore: Slurm checked against the restored journal"}},
      {"paused", "resume", {"resume", "--reason", "explore: the operator resumes"}},
  };
  for (const auto& control : all) {
    auto set = m_world.journal.control_set(control.name);
    if (!set.ok()) continue;
    const std::string marker = *set ? "on" : "off";
    check(control.name, marker);
    if (!*set || m_tracked.count(control.name)) continue;
    if (std::string(control.name) == "safe_mode") {
      if (seconds_since(m_world.daemon.started_at()) < kSafeModeAfterStartS) continue;
      (void)m_world.deployment.command({"status"});
      (void)m_world.deployment.command({"audit", "--blocked"});
    }
    escape(control.name, marker, control.name, control.escape, control.args);
  }
}

void Operator::attempt(const AttemptRow& a, const std::map<std::string, const SimJob*>& in_controller) {
  const std::string key = a.job_id + "/" + std::to_string(a.number);
  const std::string marker = a.state + "|" + a.cleanup;
  if (m_tracked.count(key)) return;
  const double w = waited(key, marker);
  const auto found = in_controller.find(a.tag_name);
  const bool held = !a.tag_name.empty() && found != in_controller.end();
  if (a.state == "submit_unknown") {
    if (held && w >= patience_for(key, "")) {
      escape(key, marker, a.state, "resolve --adopt", {"resolve", key, "--adopt", std::to_string(found->second->id)},
             kFindsCopy);
    } else if (!held) {
      escape(key, marker, a.state, "resolve --absent",
             {"resolve", key, "--absent", "--reason", "explore: the simulator never had a job with this name"});
    }
  } else if (a.state == "submitted" || a.state == "pending" || a.state == "running") {
    if (!held && w >= patience_for(key, "")) {
      escape(key, marker, a.state, "resolve --lost",
             {"resolve", key, "--lost", "--reason", "explore: slurmctld no longer holds the job"}, kConcludesForgotten);
    }
  } else if (attempt_ended(a.state) && a.cleanup != "closed" && w >= patience_for(key, a.cleanup)) {
    escape(key, marker, a.cleanup, "cleanup --force",
           {"cleanup", key, "--force", "--reason", "explore: the cleanup step waited too long"}, kClosesCleanup);
  }
}

bool Operator::escape(const std::string& key, const std::string& marker, const std::string& state,
                      const std::string& name, const std::vector<std::string>& args,
                      const std::string& needed_because) {
  const double w = waited(key, marker);
  if (m_world.deployment.command(args) != 0) return false;
  ++m_by_state["`" + name + "` in " + state];
  m_tracked[key] = {marker, Steady::now(), name};
  if (!needed_because.empty()) {
    ++m_needed;
    m_findings.push_back("escape needed: `" + name + "` on " + key + " in " + state + " after " + fixed(w, 0) +
                         " s of the drain, but " + needed_because + " (docs/architecture.md §5)");
  }
  return true;
}

void Operator::check(const std::string& key, const std::string& marker) {
  const auto found = m_tracked.find(key);
  if (found == m_tracked.end()) return;
  if (found->second.marker != marker) {
    m_tracked.erase(found);
    return;
  }
  if (seconds_since(found->second.at) <= m_bound_s) return;
  ++m_failed;
  m_findings.push_back("escape: `" + found->second.escape + "` on " + key + " was accepted but nothing moved in " +
                       fixed(m_bound_s, 0) + " s (still " + marker + ")");
  m_tracked.erase(found);
}

double Operator::waited(const std::string& key, const std::string& marker) {
  auto& w = m_waiting[key];
  if (w.marker != marker) w = {marker, Steady::now()};
  return seconds_since(w.since);
}

double Operator::patience_for(const std::string& key, const std::string& cleanup) const {
  const auto seen = m_first_seen.find(key);
  const double age =
      seen == m_first_seen.end() ? 0 : std::chrono::duration<double>(m_drain_start - seen->second).count();
  return patience(age, cleanup);
}

}  // namespace tpslurm::soak
