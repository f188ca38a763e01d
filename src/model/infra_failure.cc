#include "model/infra_failure.h"

namespace tpslurm::model {

std::optional<std::string_view> infra_failure_phase(SlurmBaseState state) {
  switch (state) {
    case SlurmBaseState::preempted: return "preemption";
    case SlurmBaseState::node_fail: return "node_failure";
    case SlurmBaseState::boot_fail: return "boot_failure";
    default: return std::nullopt;
  }
}

std::string_view infra_failure_words(std::string_view failure_phase) {
  if (failure_phase == "preemption") return "its nodes went to a job of higher priority";
  if (failure_phase == "node_failure") return "a node it ran on failed";
  if (failure_phase == "boot_failure") return "a node it was given did not boot";
  return {};
}

bool is_infra_failure(std::string_view failure_phase) {
  return failure_phase == "preemption" || failure_phase == "node_failure" || failure_phase == "boot_failure";
}

}  // namespace tpslurm::model
