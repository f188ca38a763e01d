// ClusterConfig: the simulated cluster's static configuration (slurm.conf in small).
//
// Partitions, node names and features decide which submits slurmctld rejects before
// creating anything (unknown partition 2000, a constraint no node has 2029); accounts and
// QoS, when configured, emulate accounting enforcement (2045, 2066). Every partition
// spans every node; node i offers `cpus_per_node` CPUs. Values only; thread-compatible.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace tpslurm::sim {

struct ClusterConfig {
  std::string cluster_name = "simcluster";
  std::vector<std::string> partitions = {"debug", "gpu", "cpu"};
  std::string default_partition = "debug";
  std::vector<std::string> nodes = {"vm", "vm-b"};
  std::set<std::string> features = {"h100", "cpuonly", "emu"};
  // Each node's GRES as Slurm prints it ("gpu:h100:1"); empty: none. GET nodes reports every
  // node with every feature above and this GRES; submits do not check it.
  std::string gres;
  std::uint32_t cpus_per_node = 2;
  std::uint64_t memory_per_node_mb = 7951;
  std::uint64_t def_mem_per_cpu_mb = 256;
  std::set<std::string> accounts;  // empty: no enforcement
  std::set<std::string> qos;       // empty: no enforcement
  bool accounting = true;          // slurmdbd runs: /slurmdb/ endpoints exist
  // slurmdbd's associations: user -> the accounts it may charge (GET associations?user=); a
  // user not named has none.
  std::map<std::string, std::vector<std::string>> associations;
  // SchedulerParameters=whole_hetjob: holding or releasing one component of a het job holds
  // or releases all of them (job_mgr.c _hold_job/_release_job).
  bool whole_hetjob = false;
  // MaxArraySize (every task id below it; 0: no arrays) and SchedulerParameters
  // max_array_tasks= (most tasks in one array; unset: MaxArraySize).
  std::uint32_t max_array_size = 1001;
  std::optional<std::uint32_t> max_array_tasks;

  bool has_partition(std::string_view name) const;
  // A constraint expression ("a&b", "a|b", "[a|b]", "a*2") is satisfiable when every
  // feature named in it exists on some node.
  bool constraint_satisfiable(std::string_view expression) const;
};

// Splits "a,b,c" (or "a:b:c" with separator ':'), empty items dropped.
std::vector<std::string> split_csv(std::string_view text, char separator = ',');

}  // namespace tpslurm::sim
