// Failures of the cluster, not of the program: Slurm ended the job PREEMPTED (its nodes went to
// a job of higher priority), NODE_FAIL (a node it ran on failed) or BOOT_FAIL (a node it was
// given did not boot). The platform retries them on a budget of their own
// (TUNEPLANE_INFRA_RETRIES) that costs none of the attempts a request allows for its own
// failures (docs/launch-request.md, *Retries*). An attempt that ended so is journaled with its
// failure phase named here, which is how the journal counts the retries used. Pure functions.
#pragma once

#include <optional>
#include <string_view>

#include "model/slurm_state.h"

namespace tpslurm::model {

// "preemption", "node_failure" or "boot_failure" for those states; empty for any other.
std::optional<std::string_view> infra_failure_phase(SlurmBaseState state);
// What the cluster did, in words: "its nodes went to a job of higher priority", "a node it ran
// on failed", "a node it was given did not boot".
std::string_view infra_failure_words(std::string_view failure_phase);
// The failure phase is one of those three.
bool is_infra_failure(std::string_view failure_phase);

}  // namespace tpslurm::model
