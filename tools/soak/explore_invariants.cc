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

std::string decision_of(const std::map<AttemptKey, std::string>& retry, const std::string& key) {
  const auto found = retry.find(key);
  return found == retry.end() ? "none" : found->second;
}

// The ends of the cluster's failures (model/infra_failure.h): a job that ran may be retried.
bool cluster_failure(const std::string& slurm_state) {
  return slurm_state == "NODE_FAIL" || slurm_state == "PREEMPTED" || slurm_state == "BOOT_FAIL";
}

// The archive's records by job name, ours only.
class Archive {
 public:
  Archive(const std::vector<SimJob>& jobs, const std::vector<std::string>& instances) {
    for (const auto& job : jobs) {
      if (parse_name(job.name, instances).second != 0) m_by_name[job.name].push_back(&job);
    }
  }
  const std::map<std::string, std::vector<const SimJob*>>& by_name() const { return m_by_name; }
  // Copies of `name` that were given nodes.
  long started(const std::string& name) const {
    long n = 0;
    for (const auto* job : records(name)) n += job->started ? 1 : 0;
    return n;
  }
  // The end of the first copy of `name` that ran ("COMPLETED", "NODE_FAIL", ...); empty if none ran.
  std::string end_of_run(const std::string& name) const {
    for (const auto* job : records(name)) {
      if (job->started) return job->state;
    }
    return {};
  }

 private:
  std::vector<const SimJob*> records(const std::string& name) const {
    const auto found = m_by_name.find(name);
    return found == m_by_name.end() ? std::vector<const SimJob*>{} : found->second;
  }
  std::map<std::string, std::vector<const SimJob*>> m_by_name;
};

// A second run after attempt `key` (named `name`) ran: allowed only after the cluster's failure
// that the archive shows, with a retry decided.
void check_second_run(Checker& c, const EndState& end, const Archive& archive, const std::string& job, int first,
                      int second, const std::string& first_name) {
  const std::string key = job + "/" + std::to_string(first);
  const std::string ended = archive.end_of_run(first_name);
  if (retried(end.retry, key) && cluster_failure(ended)) return;
  ++c.out.runs_twice;
  c.finding("runs twice", job + ": attempts " + std::to_string(first) + " and " + std::to_string(second) +
                              " both ran in Slurm; attempt " + std::to_string(first) + " ended " +
                              (ended.empty() ? std::string("?") : ended) + " in Slurm, its retry decision: " +
                              decision_of(end.retry, key));
}

void check_foreign(Checker& c, const EndState& end) {
  for (const auto& f : end.foreign) {
    const SimJob* found = nullptr;
    for (const auto& job : end.jobs) {
      if (job.id == f.id && job.name == f.name) found = &job;
    }
    std::string what;
    if (found == nullptr) what = "is not in the archive";
    else if (found->state == "CANCELLED") what = "was cancelled";
    else if (f.held && !found->held) what = "was released from its hold";
    if (what.empty()) continue;
    ++c.out.foreign_touched;
    c.finding("foreign job touched", "job " + std::to_string(f.id) + " (" + f.name + ") " + what);
  }
}

}  // namespace

bool retry_is_free(const std::string& decision) {
  return decision.rfind("yes", 0) == 0 &&
         (retry_says_never_ran(decision) || decision.find("costs none") != std::string::npos);
}

bool retry_says_never_ran(const std::string& decision) { return decision.find("never ran") != std::string::npos; }

Invariants check_invariants(const EndState& end) {
  Checker c;
  const Archive archive(end.jobs, end.instances);
  for (const auto& [name, copies] : archive.by_name()) c.out.slurm_jobs += static_cast<long>(copies.size());
  // Per job: the attempt numbers that ran in Slurm (and their names), from the journal and from Slurm's names.
  std::map<std::string, std::map<int, std::string>> ran;
  std::map<std::string, int> last_attempt;
  std::set<std::string> unsettled;
  for (const auto& a : end.attempts) {
    if (a.number == 0) {
      if (!phase_ended(a.job_phase)) unsettled.insert(a.job_id + " is still " + a.job_phase + " without an attempt");
      continue;
    }
    last_attempt[a.job_id] = std::max(last_attempt[a.job_id], a.number);
  }
  for (const auto& a : end.attempts) {
    if (a.number == 0) continue;
    ++c.out.attempts;
    ++c.out.attempt_states[a.state];
    const std::string key = a.job_id + "/" + std::to_string(a.number);
    const std::string name = name_of(a, end.instances);
    const long copies_ran = archive.started(name);
    if (copies_ran > 0) ran[a.job_id][a.number] = name;
    if (copies_ran > 1) {
      c.out.duplicate_runs += copies_ran - 1;
      c.finding("duplicate run", name + ": " + std::to_string(copies_ran) + " Slurm jobs started");
    }
    const std::string decision = decision_of(end.retry, key);
    if (copies_ran > 0 && retry_is_free(decision) &&
        (retry_says_never_ran(decision) || !cluster_failure(archive.end_of_run(name)))) {
      ++c.out.free_retries_of_a_run;
      c.finding("free retry of a run", key + " was given nodes in Slurm (ended " + archive.end_of_run(name) +
                                           "), but its retry decision says: " + decision);
    }
    if ((a.state == "lost" || a.state == "failed") && copies_ran == 0 && a.desire == "run" &&
        !retried(end.retry, key) && last_attempt[a.job_id] == a.number) {
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
  for (const auto& a : end.attempts) known.insert(name_of(a, end.instances));
  for (const auto& [name, copies] : archive.by_name()) {
    const auto [job, number] = parse_name(name, end.instances);
    if (known.count(name) == 0 && archive.started(name) > 0) ran[job][number] = name;
  }
  for (const auto& [job, numbers] : ran) {
    const std::pair<const int, std::string>* previous = nullptr;
    for (const auto& entry : numbers) {
      if (previous != nullptr) check_second_run(c, end, archive, job, previous->first, entry.first, previous->second);
      previous = &entry;
    }
  }
  check_foreign(c, end);
  c.out.stuck = static_cast<long>(unsettled.size());
  for (const auto& text : unsettled) c.finding("stuck", text);
  return c.out;
}

}  // namespace tpslurm::soak
