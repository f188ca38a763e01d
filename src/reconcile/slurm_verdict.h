// The verdict on an attempt from its Slurm job's records (docs/architecture.md §5): the attempt
// state they show, and for an end, why — per heterogeneous component and aggregated.
//
//   - any component not final: running when one runs (or is suspended), else pending;
//   - every component final: failed when one failed in any way (FAILED, TIMEOUT, NODE_FAIL,
//     PREEMPTED, BOOT_FAIL, DEADLINE, OUT_OF_MEMORY; that component's state and reason
//     decide, a cluster's failure — PREEMPTED, NODE_FAIL, BOOT_FAIL — before the others, which
//     it may have caused), else cancelled when one was cancelled, else succeeded (all
//     COMPLETED);
//   - a v0.0.38 record whose flag replaced the base state (COMPLETING) says nothing about the
//     end: the end comes from logs/exit.json when the script wrote it, else from a later poll;
//   - an anomaly, whatever the state: Slurm requeued the job (REQUEUED, a restart count, a new
//     SLUID on a component) or it went back to pending after running — the platform owns
//     retries, so the job is to be cancelled and the attempt failed.
//
// Retries (docs/launch-request.md): only for failures that are not the program's own — NODE_FAIL,
// BOOT_FAIL, PREEMPTED (the cluster's: their own budget, `infra_failure`), the LAUNCH_FAILED
// flag, exit.json's `container` phase, an anomaly (the request's spec.retry.max_attempts).
// Never for the program's exit, TIMEOUT, OUT_OF_MEMORY, DEADLINE, an image check, a cancel.
// Pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "journal/components.h"
#include "model/attempt_state.h"
#include "model/job_snapshot.h"
#include "storage/attempt_evidence.h"

namespace tpslurm::reconcile {

// logs/exit.json, as storage reads it.
using storage::ExitEvidence;
using storage::parse_exit_evidence;

struct Verdict {
  model::AttemptState state = model::AttemptState::pending;
  bool known = true;             // false: a v0.0.38 flag hides the end and no exit.json says it
  bool holds_resources = false;  // a component is COMPLETING or STAGE_OUT
  std::string slurm_state;       // "RUNNING"; a het job: "0:COMPLETED 1:FAILED"
  std::string reason;            // Slurm's reason (the deciding component's)
  std::optional<int> exit_code;
  std::optional<int> exit_signal;
  std::string outcome;        // an end in words, for the journal and the platform
  std::string failure_phase;  // exit.json's phase, "slurm", or "anomaly"
  std::string anomaly;        // non-empty: what Slurm did that the platform must undo
  std::string retry_because;  // non-empty: the failure is not the program's own
  // Non-empty when the cluster ended it (model/infra_failure.h): "preemption", "node_failure"
  // or "boot_failure", also the failure phase; retried on TUNEPLANE_INFRA_RETRIES.
  std::string infra_failure;
};

// `before`: what the journal holds of the components (SLUIDs, states); `was_running`: the
// attempt was already journaled running.
Verdict judge(const std::vector<model::JobSnapshot>& components, const std::vector<journal::JournaledComponent>& before,
              const std::optional<ExitEvidence>& exit, bool was_running);

// A pending attempt's wait changed in a way the platform hears of (docs/api.md, *Pending,
// explained*): a component's reason changed, or the expected start moved (model::estimate_moved).
bool pending_news(const std::vector<journal::JournaledComponent>& before,
                  const std::vector<journal::JournaledComponent>& after, TimePoint now);

// The verdict from exit.json alone (the job left slurmctld and slurmdbd has no record).
Verdict judge_exit(const ExitEvidence& exit);

}  // namespace tpslurm::reconcile
