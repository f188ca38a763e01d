#include "tally.h"

#include <map>
#include <set>

namespace tpslurm::soak {
namespace {

constexpr const char* kNamePrefix = "tp-soak-";
constexpr std::size_t kFindingsEach = 5;

std::string name_of(const AttemptRow& a) { return kNamePrefix + a.job_id + "-" + std::to_string(a.number); }

void note(std::map<std::string, std::size_t>& seen, std::vector<std::string>& findings, const std::string& kind,
          const std::string& text) {
  if (seen[kind]++ < kFindingsEach) findings.push_back(kind + ": " + text);
}

}  // namespace

Tally tally(const std::vector<AttemptRow>& attempts, const std::vector<SimJob>& jobs) {
  Tally t;
  std::map<std::string, std::size_t> seen;
  std::map<std::string, std::vector<const SimJob*>> by_name;
  for (const auto& job : jobs) {
    if (job.name.rfind(kNamePrefix, 0) != 0) continue;
    ++t.slurm_jobs;
    by_name[job.name].push_back(&job);
  }
  std::set<std::string> known;
  std::set<std::string> unended_jobs;
  for (const auto& a : attempts) {
    if (a.number == 0) {
      if (!phase_ended(a.job_phase) && unended_jobs.insert(a.job_id).second) {
        ++t.losses;
        note(seen, t.findings, "unended", a.job_id + " is still " + a.job_phase + " without an attempt");
      }
      continue;
    }
    ++t.attempts;
    ++t.attempt_states[a.state];
    const std::string name = name_of(a);
    known.insert(name);
    const auto found = by_name.find(name);
    const std::size_t copies = found == by_name.end() ? 0 : found->second.size();
    if (copies > 1) {
      t.duplicates += static_cast<long>(copies - 1);
      long ran = 0;
      for (const auto* job : found->second) ran += job->started ? 1 : 0;
      t.duplicates_ran += ran > 1 ? ran - 1 : 0;
      note(seen, t.findings, "duplicate", name + " has " + std::to_string(copies) + " Slurm jobs");
    }
    if (a.state == "lost") {
      ++t.losses;
      note(seen, t.findings, "lost", name + " ended lost though Slurm had " + std::to_string(copies) + " job(s)");
    } else if (a.slurm_job_id != 0 && copies == 0) {
      ++t.losses;
      note(seen, t.findings, "phantom",
           name + " holds Slurm job " + std::to_string(a.slurm_job_id) + " that Slurm never had");
    }
    if (attempt_ended(a.state) && a.cleanup != "closed") {
      ++t.unfinished;
      note(seen, t.findings, "cleanup", name + " ended " + a.state + " with cleanup " + a.cleanup);
    }
    if (!phase_ended(a.job_phase) && unended_jobs.insert(a.job_id).second) {
      ++t.losses;
      note(seen, t.findings, "unended",
           a.job_id + " is still " + a.job_phase + " (attempt " + name + " " + a.state + ")");
    }
  }
  for (const auto& [name, copies] : by_name) {
    if (known.count(name) == 0) {
      t.losses += static_cast<long>(copies.size());
      note(seen, t.findings, "unknown",
           name + ": Slurm job " + std::to_string(copies.front()->id) + " that no attempt knows");
    }
  }
  return t;
}

}  // namespace tpslurm::soak
