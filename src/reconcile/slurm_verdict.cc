#include "reconcile/slurm_verdict.h"

#include <boost/json.hpp>

#include "model/infra_failure.h"
#include "model/pending_reason.h"

namespace tpslurm::reconcile {
namespace {

using model::AttemptState;
using model::SlurmBaseState;
using model::SlurmStateFlag;

bool failed_in_some_way(SlurmBaseState base) {
  switch (base) {
    case SlurmBaseState::failed:
    case SlurmBaseState::timeout:
    case SlurmBaseState::node_fail:
    case SlurmBaseState::preempted:
    case SlurmBaseState::boot_fail:
    case SlurmBaseState::deadline:
    case SlurmBaseState::out_of_memory: return true;
    default: return false;
  }
}

std::string component_name(const model::JobSnapshot& c) {
  return c.het_job_offset ? "component " + std::to_string(*c.het_job_offset) : "the job";
}

std::string state_text(const std::vector<model::JobSnapshot>& components) {
  if (components.size() == 1) return components.front().state.to_string();
  std::string out;
  for (const auto& c : components) {
    if (!out.empty()) out += ' ';
    out += std::to_string(c.het_job_offset.value_or(0)) + ":" + c.state.to_string();
  }
  return out;
}

// Slurm would run it again, or did: the platform owns retries.
std::string anomaly_of(const std::vector<model::JobSnapshot>& components,
                       const std::vector<journal::JournaledComponent>& before, bool was_running) {
  for (const auto& c : components) {
    if (c.restart_count > 0 || c.state.has(SlurmStateFlag::requeued) || c.state.has(SlurmStateFlag::requeue_hold)) {
      return "Slurm requeued " + component_name(c) + " (job " + std::to_string(c.job_id) + ", restart count " +
             std::to_string(c.restart_count) + ")";
    }
    for (const auto& b : before) {
      if (b.job_id == c.job_id && !b.sluid.empty() && !c.sluid.empty() && b.sluid != c.sluid) {
        return "the SLUID of job " + std::to_string(c.job_id) + " changed from " + b.sluid + " to " + c.sluid +
               " (Slurm ran it again)";
      }
    }
  }
  if (was_running) {
    const bool all_pending = std::all_of(components.begin(), components.end(), [](const auto& c) {
      return c.state.base_known && c.state.base == SlurmBaseState::pending;
    });
    if (all_pending) return "the job went back to pending after running";
  }
  return {};
}

void judge_end(Verdict& v, const std::vector<model::JobSnapshot>& components) {
  const model::JobSnapshot* failed = nullptr;
  const model::JobSnapshot* cancelled = nullptr;
  for (const auto& c : components) {
    if (failed == nullptr && failed_in_some_way(c.state.base)) failed = &c;
    if (cancelled == nullptr && c.state.base == SlurmBaseState::cancelled) cancelled = &c;
  }
  for (const auto& c : components) {
    if (model::infra_failure_phase(c.state.base)) {
      failed = &c;  // the cluster's failure may have caused the others'
      break;
    }
  }
  const model::JobSnapshot& decider = failed ? *failed : cancelled ? *cancelled : components.front();
  v.reason = decider.state_reason;
  v.exit_code = decider.exit_code;
  v.exit_signal = decider.exit_signal;
  const std::string base(model::to_string(decider.state.base));
  if (failed != nullptr) {
    v.state = AttemptState::failed;
    v.failure_phase = "slurm";
    v.outcome = component_name(decider) + " ended " + base + " (" + decider.state_reason + ")";
    if (decider.exit_code && decider.state.base == SlurmBaseState::failed) {
      v.outcome += ", exit code " + std::to_string(*decider.exit_code);
    }
    if (auto infra = model::infra_failure_phase(decider.state.base)) {
      v.infra_failure = std::string(*infra);
      v.failure_phase = v.infra_failure;
      v.outcome += ": " + std::string(model::infra_failure_words(*infra)) + ", not the program's failure";
      v.retry_because = base + " on " + component_name(decider);
    }
  } else if (cancelled != nullptr) {
    v.state = AttemptState::cancelled;
    v.outcome = component_name(decider) + " was cancelled (" + decider.state_reason + ")";
  } else {
    v.state = AttemptState::succeeded;
    v.outcome = "every component completed";
  }
  for (const auto& c : components) {
    if (c.state.has(SlurmStateFlag::launch_failed) && v.state == AttemptState::failed) {
      v.retry_because = "the launch failed on " + component_name(c);
    }
  }
}

void apply_exit_phase(Verdict& v, const ExitEvidence& exit) {
  if (exit.exit_status == 0 || exit.failed_phase.empty() || !v.infra_failure.empty()) return;
  v.failure_phase = exit.failed_phase;
  if (exit.failed_phase == "container" && v.state == AttemptState::failed && v.retry_because.empty()) {
    v.retry_because = "the container did not start (exit.json: container)";
  }
}

}  // namespace

Verdict judge_exit(const ExitEvidence& exit) {
  Verdict v;
  v.exit_code = exit.exit_status;
  v.slurm_state = "?";
  if (exit.exit_status == 0) {
    v.state = AttemptState::succeeded;
    v.outcome = "the batch script ended with status 0 (exit.json)";
    return v;
  }
  v.state = AttemptState::failed;
  v.failure_phase = "program";
  v.outcome = "the batch script ended with status " + std::to_string(exit.exit_status) + " (exit.json" +
              (exit.failed_phase.empty() ? std::string(")") : ", phase " + exit.failed_phase + ")");
  apply_exit_phase(v, exit);
  return v;
}

Verdict judge(const std::vector<model::JobSnapshot>& components, const std::vector<journal::JournaledComponent>& before,
              const std::optional<ExitEvidence>& exit, bool was_running) {
  Verdict v;
  v.slurm_state = state_text(components);
  for (const auto& c : components) v.holds_resources = v.holds_resources || c.state.holds_resources();
  if (components.empty()) {
    v.known = false;
    return v;
  }
  v.anomaly = anomaly_of(components, before, was_running);
  const bool base_hidden =
      std::any_of(components.begin(), components.end(), [](const auto& c) { return !c.state.base_known; });
  const bool any_live = std::any_of(components.begin(), components.end(),
                                    [](const auto& c) { return c.state.base_known && !c.state.base_is_final(); });
  if (any_live || (base_hidden && !exit)) {
    const bool runs = std::any_of(components.begin(), components.end(), [](const auto& c) {
      return c.state.base == SlurmBaseState::running || c.state.base == SlurmBaseState::suspended;
    });
    v.state = runs || (base_hidden && was_running) ? AttemptState::running : AttemptState::pending;
    v.known = !base_hidden || any_live;
    v.reason = components.front().state_reason;
    return v;
  }
  if (base_hidden) {
    Verdict from_exit = judge_exit(*exit);
    from_exit.slurm_state = v.slurm_state;
    from_exit.holds_resources = v.holds_resources;
    from_exit.anomaly = v.anomaly;
    return from_exit;
  }
  judge_end(v, components);
  if (exit) apply_exit_phase(v, *exit);
  return v;
}

bool pending_news(const std::vector<journal::JournaledComponent>& before,
                  const std::vector<journal::JournaledComponent>& after, TimePoint now) {
  for (const auto& a : after) {
    for (const auto& b : before) {
      if (b.job_id == a.job_id && b.reason != a.reason) return true;
    }
  }
  return model::estimate_moved(journal::expected_start(before), journal::expected_start(after), now);
}

}  // namespace tpslurm::reconcile
