// The LaunchRequest: how the platform describes one job (docs/launch-request.md).
//
// parse_launch_request() reads the JSON, checks its shape (types, unknown fields, hostile
// input within the limits below) and validates it against the two catalogs and the runtime
// profile. It collects every problem of the request, each with its JSON path, the value and
// the fix, and returns either a fully valid LaunchRequest or all the problems.
//
// A valid request also carries its canonical JSON without `credentials` (keys sorted, no
// whitespace): the idempotency hash of a job is taken over that text. The ingest token is
// kept apart (`ingest_token`) so that nothing that stores the canonical form can leak it.
//
// Pure values; no I/O. Thread-compatible.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "model/gpu_series.h"
#include "model/problems.h"
#include "model/runtime_registry.h"
#include "model/user_map.h"

namespace tpslurm::model {

// Hostile-input limits, documented in docs/launch-request.md. Anything beyond them is refused with a
// message that names the limit.
struct RequestLimits {
  static constexpr std::size_t max_body_bytes = 1 << 20;      // 1 MiB
  static constexpr int max_depth = 16;                        // nesting of objects and arrays
  static constexpr std::size_t max_string_bytes = 64 << 10;   // one string value
  static constexpr std::size_t max_command_args = 4096;
  static constexpr std::size_t max_env_vars = 1024;
  static constexpr std::size_t max_pools = 16;
  static constexpr std::size_t max_mounts = 128;
  static constexpr int max_nodes_per_pool = 10000;
  static constexpr int max_gpus_per_node = 64;
  static constexpr int max_cpus_per_node = 100000;
  static constexpr double max_memory_gb = 1 << 20;            // 1 PiB per node
  static constexpr int max_time_limit_minutes = 365 * 24 * 60;
  static constexpr int max_attempts = 100;
};

struct Pool {
  std::string name;
  std::string gpu_series;  // empty for a CPU-only pool
  int nodes = 0;
  int gpus_per_node = 0;
  int cpus = 0;                // CPUs per node
  std::int64_t memory_mb = 0;  // memory per node, from memory_gb (GiB) x 1024
};

struct Mount {
  std::string source;  // relative to the storage root
  std::string target;  // absolute path inside the container
  bool read_only = false;
};

struct SlurmOverrides {
  std::optional<std::string> account;
  std::optional<std::string> qos;
  std::optional<std::string> reservation;
  std::optional<std::string> wckey;
  std::optional<bool> exclusive;
};

struct LaunchRequest {
  std::string job_id;
  // The platform user the job is for (`user`). In per-user mode it is required and names a user
  // of the user map, whose Unix user the job runs as; in one-user mode it is optional and only
  // recorded: every job runs as the job user.
  std::optional<std::string> user;
  std::string type;  // "custom" | "training"
  std::string framework;
  std::string runtime_id;
  std::vector<std::string> command;
  std::string working_dir;  // empty: the container's default
  std::vector<std::pair<std::string, std::string>> env;  // sorted by name
  std::vector<Pool> pools;
  std::vector<Mount> mounts;
  std::optional<int> time_limit_minutes;
  std::optional<std::string> partition;
  int max_attempts = 1;
  SlurmOverrides slurm;
  std::optional<int> checkpoint_grace_seconds;

  std::optional<std::string> ingest_token;  // secret: never journaled, logged or rendered
  std::string canonical_json;               // the request without `credentials`, canonical form

  // type custom, framework custom, one pool without GPUs.
  bool is_cpu_only() const;
};

struct ValidationContext {
  const GpuSeriesCatalog& gpu_series;
  const RuntimeRegistry& runtimes;
  RuntimeProfile profile = RuntimeProfile::enroot_pyxis;
  // Set in per-user mode: `user` is required, must be in the map and not among the refused
  // users, and every account, QoS and partition the job would use must be one the user may use
  // — the site's partitions below included when the request names none.
  const UserMap* users = nullptr;
  const std::map<std::string, std::string>* refused_users = nullptr;  // Catalogs::refused_users
  std::string_view default_partition{};      // TUNEPLANE_SLURM_PARTITION
  std::string_view default_cpu_partition{};  // TUNEPLANE_SLURM_CPU_PARTITION
};

Result<LaunchRequest, Problems> parse_launch_request(std::string_view json, const ValidationContext& context);

// The job id rule: [a-z0-9][a-z0-9-]{0,62}.
bool is_valid_job_id(std::string_view id);

}  // namespace tpslurm::model
