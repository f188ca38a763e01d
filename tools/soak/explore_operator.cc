#include "explore_operator.h"

namespace tpslurm::soak {
namespace {

constexpr double kSafeModeAfterStartS = 6;  // three poll intervals: serve has searched by then

}  // namespace

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
    escape(control.name, marker, control.escape, control.args);
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
    if (held && w >= m_patience_s) {
      escape(key, marker, "resolve --adopt", {"resolve", key, "--adopt", std::to_string(found->second->id)});
    } else if (!held) {
      escape(key, marker, "resolve --absent",
             {"resolve", key, "--absent", "--reason", "explore: the simulator never had a job with this name"});
    }
  } else if (a.state == "submitted" || a.state == "pending" || a.state == "running") {
    if (!held && w >= m_patience_s) {
      escape(key, marker, "resolve --lost",
             {"resolve", key, "--lost", "--reason", "explore: slurmctld no longer holds the job"});
    }
  } else if (attempt_ended(a.state) && a.cleanup != "closed" && w >= m_patience_s) {
    escape(key, marker, "cleanup --force",
           {"cleanup", key, "--force", "--reason", "explore: the cleanup step waited too long"});
  }
}

bool Operator::escape(const std::string& key, const std::string& marker, const std::string& name,
                      const std::vector<std::string>& args) {
  if (m_world.deployment.command(args) != 0) return false;
  ++m_applied[name];
  m_tracked[key] = {marker, Steady::now(), name};
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

}  // namespace tpslurm::soak
