#include "explore_invariants.h"

#include <set>

namespace tpslurm::soak {
namespace {

constexpr std::size_t kFindingsEach = 5;

struct Checker {
  Invariants out;
  std::map<std::string, std::size_t> seen;

  void finding(const std::string& kind, const std::string& text) {
    if (seen[kind]++ < kFindingsEach) out.findings.push_back(kind + ": " + text);
  }
};

// (job, attempt number) of a name tp-<instance>-<job>-<n>; number 0 when it is not one of ours.
std::pair<std::string, int> parse_name(const std::string& name, const std::vector<std::string>& instances) {
  for (const auto& instance : instances) {
    const std::string prefix = "tp-" + instance + "-";
    if (name.rfind(prefix, 0) != 0) continue;
    const auto dash = name.rfind('-');
    if (dash <= prefix.size()) continue;
    try {
      return {name.substr(prefix.size(), dash - prefix.size()), std::stoi(name.substr(dash + 1))};
    } catch (const std::exception&) {
      continue;
    }
  }
  return {"", 0};
}

std::string name_of(const AttemptRow& a, const std::vector<std::string>& instances) {
  if (!a.tag_name.empty()) return a.tag_name;
  return "tp-" + (instances.empty() ? std::string("explore") : instances.front()) + "-" + a.job_id + "-" +
         std::to_string(a.number);
}

bool retried(const std::map<AttemptKey, std::string>& retry, const std::string& key) {
  const auto found = retry.find(key);
  return found != retry.end() && found->second.rfind("yes", 0) == 0;
}

}  // namespace

Invariants check_invariants(const std::vector<AttemptRow>& attempts, const std::map<AttemptKey, std::string>& retry,
                            const std::vector<SimJob>& jobs, const std::vector<std::string>& instances) {
  Checker c;
  std::map<std::string, std::vector<const SimJob*>> by_name;
  for (const auto& job : jobs) {
    if (parse_name(job.name, instances).second == 0) continue;
    ++c.out.slurm_jobs;
    by_name[job.name].push_back(&job);
  }
  const auto started = [&by_name](const std::string& name) {
    long n = 0;
    if (auto found = by_name.find(name); found != by_name.end()) {
      for (const auto* job : found->second) n += job->started ? 1 : 0;
    }
    return n;
  };
  // Per job: the attempt numbers that ran in Slurm, from the journal and from Slurm's names.
  std::map<std::string, std::set<int>> ran;
  std::map<std::string, int> last_attempt;
  std::set<std::string> unsettled;
  for (const auto& a : attempts) {
    if (a.number == 0) {
      if (!phase_ended(a.job_phase)) unsettled.insert(a.job_id + " is still " + a.job_phase + " without an attempt");
      continue;
    }
    last_attempt[a.job_id] = std::max(last_attempt[a.job_id], a.number);
  }
  for (const auto& a : attempts) {
    if (a.number == 0) continue;
    ++c.out.attempts;
    ++c.out.attempt_states[a.state];
    const std::string key = a.job_id + "/" + std::to_string(a.number);
    const std::string name = name_of(a, instances);
    const long copies_ran = started(name);
    if (copies_ran > 0) ran[a.job_id].insert(a.number);
    if (copies_ran > 1) {
      c.out.duplicate_runs += copies_ran - 1;
      c.finding("duplicate run", name + ": " + std::to_string(copies_ran) + " Slurm jobs started");
    }
    if ((a.state == "lost" || a.state == "failed") && copies_ran == 0 && a.desire == "run" && !retried(retry, key) &&
        last_attempt[a.job_id] == a.number) {
      ++c.out.ended_without_running;
      c.finding("ended without running", key + " ended " + a.state + ", no Slurm job of it started, not retried");
    }
    if (!phase_ended(a.job_phase) && last_attempt[a.job_id] == a.number) {
      unsettled.insert(a.job_id + " is still " + a.job_phase + " (attempt " + key + " " + a.state + ")");
    } else if (attempt_ended(a.state) && a.cleanup != "closed") {
      unsettled.insert(key + " ended " + a.state + " with its cleanup " + a.cleanup);
    }
  }
  std::set<std::string> known;
  for (const auto& a : attempts) known.insert(name_of(a, instances));
  for (const auto& [name, copies] : by_name) {
    const auto [job, number] = parse_name(name, instances);
    if (known.count(name) == 0 && started(name) > 0) ran[job].insert(number);
  }
  for (const auto& [job, numbers] : ran) {
    int previous = 0;
    for (int number : numbers) {
      const std::string key = job + "/" + std::to_string(previous);
      if (previous != 0 && !retried(retry, key)) {
        ++c.out.runs_twice;
        const auto decision = retry.find(key);
        c.finding("runs twice", job + ": attempts " + std::to_string(previous) + " and " + std::to_string(number) +
                                    " both ran in Slurm; attempt " + std::to_string(previous) + "'s retry decision: " +
                                    (decision == retry.end() ? "none" : decision->second));
      }
      previous = number;
    }
  }
  c.out.stuck = static_cast<long>(unsettled.size());
  for (const auto& text : unsettled) c.finding("stuck", text);
  return c.out;
}

}  // namespace tpslurm::soak
