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

bool is_infra_failure(std::string_view failure_phase) {
  return failure_phase == "preemption" || failure_phase == "node_failure" || failure_phase == "boot_failure";
}

}  // namespace tpslurm::model
