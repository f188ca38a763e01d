// RpcStats: slurmctld's RPC statistics, as `sdiag` and `GET /slurm/vX/diag` report them.
//
// The simulated slurmctld counts one RPC per call a REST request makes to it (22.05's
// v0.0.38 ping, for instance, loads the configuration with REQUEST_BUILD_INFO and then
// sends REQUEST_PING; slurmdbd calls are not slurmctld's), plus the node registrations
// it received when it started. Each RPC "takes" a fixed number of microseconds per
// type, so totals and averages are repeatable. Message type numbers are Slurm's
// (src/common/msg_type.h, values that never change between releases). Listings are
// most frequent first, ties in the order first seen, as sdiag sorts them by count.
// Not thread-safe: the server thread is the only caller.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tpslurm::sim {

enum class Rpc {
  node_registration,     // MESSAGE_NODE_REGISTRATION_STATUS 1002
  ping,                  // REQUEST_PING 1008
  build_info,            // REQUEST_BUILD_INFO 2001
  job_info,              // REQUEST_JOB_INFO 2003
  partition_info,        // REQUEST_PARTITION_INFO 2009
  job_info_single,       // REQUEST_JOB_INFO_SINGLE 2021
  stats_info,            // REQUEST_STATS_INFO 2035
  job_state,             // REQUEST_JOB_STATE 2057
  update_job,            // REQUEST_UPDATE_JOB 3001
  submit_batch_job,      // REQUEST_SUBMIT_BATCH_JOB 4003
  submit_batch_het_job,  // REQUEST_SUBMIT_BATCH_HET_JOB 4028
  kill_job,              // REQUEST_KILL_JOB 5032 (22.05's slurm_kill_job2)
  kill_jobs,             // REQUEST_KILL_JOBS 5040 (24.11+'s slurm_kill_jobs)
};

int rpc_type_id(Rpc rpc);
std::string_view rpc_name(Rpc rpc);

struct RpcTypeCount {
  int type_id = 0;
  std::string_view message_type;
  std::uint64_t count = 0;
  std::uint64_t total_us = 0;
  std::uint64_t average_us() const { return count ? total_us / count : 0; }
};

struct RpcUserCount {
  std::string user;
  std::uint32_t user_id = 0;
  std::uint64_t count = 0;
  std::uint64_t total_us = 0;
  std::uint64_t average_us() const { return count ? total_us / count : 0; }
};

class RpcStats {
 public:
  void record(Rpc rpc, const std::string& user, std::uint32_t user_id);
  std::vector<RpcTypeCount> by_type() const;
  std::vector<RpcUserCount> by_user() const;

 private:
  std::vector<RpcTypeCount> m_types;  // in the order first seen
  std::vector<RpcUserCount> m_users;
};

}  // namespace tpslurm::sim
