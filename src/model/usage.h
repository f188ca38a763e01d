// What an ended attempt used, as slurmdbd recorded it (docs/api.md, *Usage*): per heterogeneous
// component (a plain job is one) its partition, GPU series, elapsed time and allocated CPUs,
// memory, nodes and GPUs, and the attempt's GPU-hours and CPU-hours; or, when there is none, why
// ("accounting is off": the cluster keeps no accounting, so there is nothing to show, never
// zeros). The attempts' `usage` column holds usage_json(); the reconciler writes it once when the
// attempt ends. Pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/job_snapshot.h"

namespace tpslurm::model {

struct ComponentUsage {
  int offset = 0;
  std::string partition;
  std::string gpu_series;  // the pool's, from the request; empty for a CPU-only job
  Allocation allocation;
};

struct AttemptUsage {
  std::string none;  // non-empty: why there is no usage ("accounting is off", ...)
  std::vector<ComponentUsage> components;

  double gpu_hours() const;  // Σ GPUs × elapsed
  double cpu_hours() const;  // Σ CPUs × elapsed
};

inline constexpr std::string_view kAccountingOff = "accounting is off";

// {"components": [{offset, partition, gpu_series, elapsed_seconds, cpus, memory_mb, nodes,
// gpus}], "gpu_hours", "cpu_hours"} or {"none": WHY}.
std::string usage_json(const AttemptUsage& usage);
// What usage_json wrote; empty for an empty or unreadable column.
std::optional<AttemptUsage> parse_usage(std::string_view json);
// "ran 2h3m: 16.40 GPU-hours (8 GPUs), 131.20 CPU-hours (64 CPUs), 512.00 GB of memory" or
// "no usage: accounting is off".
std::string usage_words(const AttemptUsage& usage);

}  // namespace tpslurm::model
