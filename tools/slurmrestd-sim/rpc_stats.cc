#include "rpc_stats.h"

#include <algorithm>

namespace tpslurm::sim {

namespace {

struct RpcInfo {
  Rpc rpc;
  int type_id;
  std::string_view name;
  std::uint64_t cost_us;  // what one call "takes" in the simulated slurmctld
};

// Costs are of the order a small real controller shows (diag.txt: ping ~190 us, a
// submit ~2 ms).
constexpr RpcInfo kRpcs[] = {
    {Rpc::node_registration, 1002, "MESSAGE_NODE_REGISTRATION_STATUS", 400},
    {Rpc::ping, 1008, "REQUEST_PING", 190},
    {Rpc::build_info, 2001, "REQUEST_BUILD_INFO", 160},
    {Rpc::job_info, 2003, "REQUEST_JOB_INFO", 450},
    {Rpc::partition_info, 2009, "REQUEST_PARTITION_INFO", 280},
    {Rpc::job_info_single, 2021, "REQUEST_JOB_INFO_SINGLE", 300},
    {Rpc::stats_info, 2035, "REQUEST_STATS_INFO", 120},
    {Rpc::job_state, 2057, "REQUEST_JOB_STATE", 250},
    {Rpc::update_job, 3001, "REQUEST_UPDATE_JOB", 600},
    {Rpc::submit_batch_job, 4003, "REQUEST_SUBMIT_BATCH_JOB", 1970},
    {Rpc::submit_batch_het_job, 4028, "REQUEST_SUBMIT_BATCH_HET_JOB", 3100},
    {Rpc::kill_job, 5032, "REQUEST_KILL_JOB", 520},
    {Rpc::kill_jobs, 5040, "REQUEST_KILL_JOBS", 540},
};

const RpcInfo& info(Rpc rpc) {
  for (const auto& i : kRpcs) {
    if (i.rpc == rpc) return i;
  }
  return kRpcs[0];
}

template <typename T>
std::vector<T> by_count(std::vector<T> items) {
  std::stable_sort(items.begin(), items.end(), [](const T& a, const T& b) { return a.count > b.count; });
  return items;
}

}  // namespace

int rpc_type_id(Rpc rpc) { return info(rpc).type_id; }
std::string_view rpc_name(Rpc rpc) { return info(rpc).name; }

void RpcStats::record(Rpc rpc, const std::string& user, std::uint32_t user_id) {
  const RpcInfo& i = info(rpc);
  auto type =
      std::find_if(m_types.begin(), m_types.end(), [&](const RpcTypeCount& t) { return t.type_id == i.type_id; });
  if (type == m_types.end()) type = m_types.insert(m_types.end(), RpcTypeCount{i.type_id, i.name, 0, 0});
  ++type->count;
  type->total_us += i.cost_us;
  auto who = std::find_if(m_users.begin(), m_users.end(), [&](const RpcUserCount& u) { return u.user_id == user_id; });
  if (who == m_users.end()) who = m_users.insert(m_users.end(), RpcUserCount{user, user_id, 0, 0});
  ++who->count;
  who->total_us += i.cost_us;
}

std::vector<RpcTypeCount> RpcStats::by_type() const { return by_count(m_types); }
std::vector<RpcUserCount> RpcStats::by_user() const { return by_count(m_users); }

}  // namespace tpslurm::sim
