// The statistics of `GET /slurm/vX/diag` (slurmctld's sdiag data), per dialect.
//
// v0.0.38 in the order and types of the real 22.05.8 transcript (samples-v0.0.38/
// diag.txt): plain integers, the RPC lists first. v0.0.4x in the order of the generated
// OpenAPI documents (`stats_msg`): times as {set, infinite, number}, `parts_packed` only
// up to v0.0.44, nested `schedule_exit`/`bf_exit`, pending-RPC lists. What the simulator
// does not model (scheduler and backfill cycles, agent queues, threads) reads as an idle
// controller would show it: zeros, one server thread; the DBD agent queue counts what an
// accounting lag holds back. Stateless functions.
#pragma once

#include <cstdint>
#include <vector>

#include "job_store.h"
#include "json_writer.h"
#include "release.h"
#include "rpc_stats.h"

namespace tpslurm::sim {

struct DiagSnapshot {
  std::int64_t req_time = 0;        // the controller's clock when it answered
  std::int64_t req_time_start = 0;  // when the statistics were last reset (0: never, as 22.05 shows)
  JobCounters jobs;
  std::uint64_t jobs_pending = 0;
  std::uint64_t jobs_running = 0;
  std::int64_t job_states_ts = 0;  // when jobs_pending/jobs_running were counted
  std::uint64_t dbd_agent_queue_size = 0;  // records an accounting lag holds back from slurmdbd
  std::vector<RpcTypeCount> rpcs_by_type;
  std::vector<RpcUserCount> rpcs_by_user;
};

// Writes the "statistics" member into an open object.
void write_diag_statistics(JsonWriter& out, const DiagSnapshot& snapshot, Dialect dialect);

}  // namespace tpslurm::sim
