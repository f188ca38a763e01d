#include "dbd_json.h"

#include <algorithm>

#include "array_spec.h"
#include "envelope.h"
#include "job_json.h"
#include "sluid.h"

namespace tpslurm::sim {

namespace {

// An array job's limits: {"max": {"running": {"tasks": P}}} (the %P throttle, 0 when none).
void write_array_limits(JsonWriter& out, const JobRecord& job) {
  out.key("limits").begin_object().key("max").begin_object().key("running").begin_object();
  out.int_field("tasks", job.array_max_tasks).end_object().end_object().end_object();
}

// slurmdbd's array_task_str: the pending tasks as build_array_str()'s hex mask, on the meta
// row only (unverified against a real slurmdbd).
std::string dbd_array_task(const JobRecord& job) {
  return job.is_array_meta() ? array_hexmask(job.array_pending) : "";
}

void seconds_field(JsonWriter& out, std::string_view name) {
  out.key(name).begin_object().int_field("seconds", 0).int_field("microseconds", 0).end_object();
}

void tres_list(JsonWriter& out, std::string_view name, const JobRecord& job, const ClusterConfig& cluster,
               bool present) {
  out.key(name).begin_array();
  if (present) {
    struct Tres {
      const char* type;
      int id;
      std::int64_t count;
    };
    const Tres items[] = {
        {"cpu", 1, job.total_cpus()},
        {"mem", 2, static_cast<std::int64_t>(job.allocated_mem_mb(cluster.def_mem_per_cpu_mb))},
        {"node", 4, job.min_nodes},
        {"billing", 5, job.total_cpus()},
    };
    for (const auto& t : items) {
      out.begin_object()
          .str_field("type", t.type)
          .str_field("name", "")
          .int_field("id", t.id)
          .int_field("count", t.count)
          .end_object();
    }
    if (job.gpus) {
      out.begin_object()
          .str_field("type", "gres")
          .str_field("name", "gpu")
          .int_field("id", 1001)
          .int_field("count", job.gpus * job.min_nodes)
          .end_object();
    }
  }
  out.end_array();
}

std::int64_t elapsed_of(const JobRecord& job, std::int64_t now_s) {
  if (!job.start_time) return 0;
  std::int64_t end = is_finished(job.state) ? job.end_time : now_s;
  return std::max<std::int64_t>(0, end - job.start_time);
}

// dbv0.0.38 writes its TRES with a null name; an allocation also lists energy (count null).
void tres_list_v38(JsonWriter& out, std::string_view name, const JobRecord& job, const ClusterConfig& cluster,
                   bool present, bool allocation, bool with_billing) {
  out.key(name).begin_array();
  if (present) {
    auto item = [&](const char* type, int id, std::int64_t count) {
      out.begin_object()
          .str_field("type", type)
          .null_field("name")
          .int_field("id", id)
          .int_field("count", count)
          .end_object();
    };
    item("cpu", 1, job.total_cpus());
    item("mem", 2, static_cast<std::int64_t>(job.allocated_mem_mb(cluster.def_mem_per_cpu_mb)));
    if (allocation && with_billing) {
      out.begin_object()
          .str_field("type", "energy")
          .null_field("name")
          .int_field("id", 3)
          .null_field("count")
          .end_object();
    }
    item("node", 4, job.min_nodes);
    if (with_billing) item("billing", 5, job.total_cpus());
    if (job.gpus) {
      out.begin_object()
          .str_field("type", "gres")
          .str_field("name", "gpu")
          .int_field("id", 1001)
          .int_field("count", job.gpus * job.min_nodes)
          .end_object();
    }
  }
  out.end_array();
}

// {status, return_code}: dbv0.0.38 tests WIFEXITED first, so every normal exit, even a
// non-zero one, reads SUCCESS/0 (22.05's bug, as recorded).
void exit_v38(JsonWriter& out, std::string_view name, std::int32_t status) {
  out.key(name).begin_object();
  if ((status & 0x7f) == 0) {
    out.str_field("status", "SUCCESS");
    out.int_field("return_code", 0);
  } else {
    out.str_field("status", "SIGNALED");
    out.null_field("return_code");
    out.key("signal")
        .begin_object()
        .int_field("signal_id", status & 0x7f)
        .str_field("name", signal_name(status & 0x7f))
        .end_object();
  }
  out.end_object();
}

// The batch step, which slurmdbd records for the component that ran the script.
void batch_step_v38(JsonWriter& out, const JobRecord& job, const ClusterConfig& cluster, std::int64_t now_s) {
  const bool finished = is_finished(job.state);
  const std::string node = job.nodes.substr(0, job.nodes.find(','));
  out.begin_object();
  out.key("nodes").begin_object();
  out.string_array_field("list", std::vector<std::string>{node});
  out.int_field("count", 1).str_field("range", node);
  out.end_object();
  out.key("tres").begin_object();
  for (const char* usage : {"requested", "consumed"}) {
    out.key(usage).begin_object();
    for (const char* stat : {"max", "min", "average", "total"}) out.empty_array_field(stat);
    out.end_object();
  }
  tres_list_v38(out, "allocated", job, cluster, true, true, false);
  out.end_object();
  out.key("time").begin_object();
  out.int_field("elapsed", elapsed_of(job, now_s));
  out.int_field("end", finished ? job.end_time : 0);
  out.int_field("start", job.start_time);
  out.int_field("suspended", 0);
  seconds_field(out, "system");
  seconds_field(out, "total");
  seconds_field(out, "user");
  out.end_object();
  exit_v38(out, "exit_code", job.exit_status);
  out.key("tasks").begin_object().int_field("count", 1).end_object();
  out.null_field("pid");
  out.key("CPU").begin_object();
  out.key("requested_frequency").begin_object().int_field("min", 0).int_field("max", 0).end_object();
  out.empty_array_field("governor");
  out.end_object();
  out.null_field("kill_request_user");
  out.str_field("state", base_state_name(job.state));
  out.key("statistics").begin_object();
  out.key("CPU").begin_object().int_field("actual_frequency", 0).end_object();
  out.key("energy").begin_object().int_field("consumed", 0).end_object();
  out.end_object();
  out.key("step").begin_object();
  out.int_field("job_id", job.job_id);
  out.key("het").begin_object().null_field("component").end_object();
  out.str_field("id", "batch").str_field("name", "batch");
  out.end_object();
  out.key("task").begin_object().str_field("distribution", "Unknown").end_object();
  out.end_object();
}

// `name`: `value`, or null when `value` is empty.
void string_or_null(JsonWriter& out, std::string_view name, const std::string& value) {
  if (value.empty()) {
    out.null_field(name);
  } else {
    out.str_field(name, value);
  }
}

// A v0.0.38 record from "account" to "derived_exit_code": who, the array, the association.
void write_dbd_owner_v38(JsonWriter& out, const JobRecord& job, const ClusterConfig& cluster) {
  out.str_field("account", job.account);
  out.key("comment").begin_object();
  out.null_field("administrator");
  string_or_null(out, "job", job.comment);
  out.null_field("system");
  out.end_object();
  out.int_field("allocation_nodes", job.allocated ? job.min_nodes : 0);
  out.key("array").begin_object();
  out.int_field("job_id", job.array_job_id);
  write_array_limits(out, job);
  string_or_null(out, "task", dbd_array_task(job));
  if (job.array_task_id) {
    out.int_field("task_id", *job.array_task_id);
  } else {
    out.null_field("task_id");
  }
  out.end_object();
  // The job's association is the user's in the account, without a partition.
  out.key("association").begin_object();
  out.str_field("account", job.account).str_field("cluster", cluster.cluster_name).null_field("partition");
  out.str_field("user", job.user_name);
  out.end_object();
  out.str_field("cluster", cluster.cluster_name);
  out.str_field("constraints", job.constraints);
  out.null_field("container");
  exit_v38(out, "derived_exit_code", job.derived_exit_status);
}

// A v0.0.38 record's `time` object.
void write_dbd_time_v38(JsonWriter& out, const JobRecord& job, std::int64_t now_s) {
  out.key("time").begin_object();
  out.int_field("elapsed", elapsed_of(job, now_s));
  out.int_field("eligible", job.eligible_time);
  out.int_field("end", is_finished(job.state) ? job.end_time : 0);
  out.int_field("start", job.start_time);
  out.int_field("submission", job.submit_time);
  out.int_field("suspended", 0);
  seconds_field(out, "system");
  if (job.time_limit_min) {
    out.int_field("limit", *job.time_limit_min);
  } else {
    out.null_field("limit");
  }
  seconds_field(out, "total");
  seconds_field(out, "user");
  out.end_object();
}

// A v0.0.38 record from "exit_code" to "kill_request_user": flags, het ids, placement, size.
void write_dbd_placement_v38(JsonWriter& out, const JobRecord& job, const ClusterConfig& cluster) {
  // A cancelled job's row reads SUCCESS/0 on 22.05.8, its batch step the signal (arrays-v0.0.38).
  exit_v38(out, "exit_code", job.state == BaseState::cancelled ? 0 : job.exit_status);
  if (job.allocated) {
    out.string_array_field("flags", std::vector<std::string_view>{"CLEAR_SCHEDULING", "STARTED_ON_BACKFILL"});
  } else {
    out.string_array_field("flags", std::vector<std::string_view>{"NOT_SET"});
  }
  out.str_field("group", job.group_name);
  out.key("het").begin_object();
  out.int_field("job_id", job.het_job_id);
  if (job.is_het()) {
    out.int_field("job_offset", job.het_job_offset);
  } else {
    out.null_field("job_offset");  // NO_VAL
  }
  out.end_object();
  out.int_field("job_id", job.job_id);
  out.str_field("name", job.name);
  out.key("mcs").begin_object().str_field("label", "").end_object();
  out.str_field("nodes", job.allocated ? job.nodes : "None assigned");
  out.str_field("partition", job.partition);
  out.int_field("priority", job.priority);
  out.str_field("qos", job.qos);
  out.key("required")
      .begin_object()
      .int_field("CPUs", job.total_cpus())
      .int_field("memory", static_cast<std::int64_t>(job.allocated_mem_mb(cluster.def_mem_per_cpu_mb)))
      .end_object();
  if (job.kill_request_uid) {
    out.str_field("kill_request_user", std::to_string(job.kill_request_uid));
  } else if (job.state == BaseState::cancelled) {
    out.str_field("kill_request_user", "root");  // cancelled by uid 0 (seen in arrays-v0.0.38)
  } else {
    out.null_field("kill_request_user");
  }
}

// A v0.0.38 record from "reservation" on: state, the batch step, TRES, user, wckey.
void write_dbd_outcome_v38(JsonWriter& out, const JobRecord& job, const ClusterConfig& cluster, std::int64_t now_s) {
  // 22.05 dumps the reservation name through an integer parser: 0 when there is none.
  out.key("reservation").begin_object().int_field("id", 0).int_field("name", 0).end_object();
  out.key("state")
      .begin_object()
      .str_field("current", base_state_name(job.state))
      .str_field("reason", job.state_reason)
      .end_object();
  out.key("steps").begin_array();
  if (job.allocated && (!job.is_het() || job.het_job_offset == 0)) batch_step_v38(out, job, cluster, now_s);
  out.end_array();
  out.key("tres").begin_object();
  tres_list_v38(out, "allocated", job, cluster, job.allocated, true, true);
  tres_list_v38(out, "requested", job, cluster, true, false, true);
  out.end_object();
  out.str_field("user", job.user_name);
  out.key("wckey").begin_object().str_field("wckey", job.wckey).empty_array_field("flags").end_object();
  out.str_field("working_directory", job.cwd);
}

// In the order and with the nulls of the records a real 22.05.8 slurmdbd answered
// (tests/slurm/recorded/dbv0.0.38_jobs_*.json).
void write_dbd_job_v38(JsonWriter& out, const JobRecord& job, const ClusterConfig& cluster, std::int64_t now_s) {
  out.begin_object();
  write_dbd_owner_v38(out, job, cluster);
  write_dbd_time_v38(out, job, now_s);
  write_dbd_placement_v38(out, job, cluster);
  write_dbd_outcome_v38(out, job, cluster, now_s);
  out.end_object();
}

// A v0.0.4x record's `time` object (`planned` from v0.0.41).
void write_dbd_time_v4x(JsonWriter& out, const JobRecord& job, int n, std::int64_t now_s) {
  out.key("time").begin_object();
  out.int_field("elapsed", elapsed_of(job, now_s));
  out.int_field("eligible", job.eligible_time);
  out.int_field("end", is_finished(job.state) ? job.end_time : 0);
  if (n >= 41) {
    no_val_field(out, "planned", job.start_time ? job.start_time - job.eligible_time : 0, job.start_time != 0);
  }
  out.int_field("start", job.start_time);
  out.int_field("submission", job.submit_time);
  out.int_field("suspended", 0);
  seconds_field(out, "system");
  if (job.time_limit_min) {
    no_val_field(out, "limit", *job.time_limit_min);
  } else {
    no_val_field(out, "limit", 0, false, true);
  }
  seconds_field(out, "total");
  seconds_field(out, "user");
  out.end_object();
}

// A v0.0.4x record's `required` object: CPUs and memory per CPU or per node.
void write_dbd_required_v4x(JsonWriter& out, const JobRecord& job, const ClusterConfig& cluster) {
  out.key("required").begin_object();
  out.int_field("CPUs", job.total_cpus());
  if (job.mem_per_node_mb) {
    no_val_field(out, "memory_per_cpu", 0, false);
    no_val_field(out, "memory_per_node", static_cast<std::int64_t>(job.mem_per_node_mb));
  } else {
    no_val_field(out, "memory_per_cpu",
                 static_cast<std::int64_t>(job.mem_per_cpu_mb ? job.mem_per_cpu_mb : cluster.def_mem_per_cpu_mb));
    no_val_field(out, "memory_per_node", 0, false);
  }
  out.end_object();
}

// A v0.0.41+ record's standard streams, expanded and as given.
void write_dbd_io_v4x(JsonWriter& out, const JobRecord& job, bool sluid_patterns) {
  out.str_field("stdin_expanded", job.expand_path(job.std_in, sluid_patterns));
  out.str_field("stdout_expanded", job.expand_path(job.std_out.empty() ? "slurm-%j.out" : job.std_out, sluid_patterns));
  out.str_field("stderr_expanded", job.expand_path(job.std_err, sluid_patterns));
  out.str_field("stdout", job.std_out.empty() ? "slurm-%j.out" : job.std_out);
  out.str_field("stderr", job.std_err);
  out.str_field("stdin", job.std_in);
}

}  // namespace

void write_dbd_job(JsonWriter& out, const JobRecord& job, Dialect dialect, const ClusterConfig& cluster,
                   std::int64_t now_s) {
  if (!is_v4x(dialect)) {
    write_dbd_job_v38(out, job, cluster, now_s);
    return;
  }
  const bool v45 = dialect == Dialect::v0045;
  const int n = dialect_number(dialect);
  out.begin_object();
  out.str_field("account", job.account);
  out.key("comment")
      .begin_object()
      .str_field("administrator", "")
      .str_field("job", job.comment)
      .str_field("system", "")
      .end_object();
  out.int_field("allocation_nodes", job.allocated ? job.min_nodes : 0);
  out.key("array").begin_object();
  out.int_field("job_id", job.array_job_id);
  write_array_limits(out, job);
  no_val_field(out, "task_id", job.array_task_id.value_or(0), job.array_task_id.has_value());
  out.str_field("task", dbd_array_task(job));
  out.end_object();
  out.key("association").begin_object();
  out.str_field("account", job.account)
      .str_field("cluster", cluster.cluster_name)
      .str_field("partition", job.partition);
  out.str_field("user", job.user_name).int_field("id", 0);
  out.end_object();
  out.str_field("block", "");
  out.str_field("cluster", cluster.cluster_name);
  out.str_field("constraints", job.constraints);
  out.str_field("container", "");
  if (v45) out.str_field("sluid", format_sluid(job.sluid));
  out.key("derived_exit_code");
  write_exit_code_v4x(out, job.derived_exit_status);
  write_dbd_time_v4x(out, job, n, now_s);
  if (v45) out.str_field("exclusive", "");
  out.key("exit_code");
  write_exit_code_v4x(out, job.exit_status);
  out.str_field("extra", "");
  out.str_field("failed_node", "");
  out.key("flags").begin_array().string(job.allocated ? "STARTED_ON_SCHEDULE" : "NOT_SET").end_array();
  out.str_field("group", job.group_name);
  out.key("het").begin_object();
  out.int_field("job_id", job.het_job_id);
  no_val_field(out, "job_offset", job.het_job_offset, job.is_het());
  out.end_object();
  out.int_field("job_id", job.job_id);
  out.str_field("name", job.name);
  out.str_field("licenses", "");
  out.key("mcs").begin_object().str_field("label", "").end_object();
  out.str_field("nodes", job.allocated ? job.nodes : "None assigned");
  if (v45) out.str_field("oversubscribe", "");
  out.str_field("partition", job.partition);
  out.bool_field("hold", job.hold && job.state == BaseState::pending);
  no_val_field(out, "priority", job.priority);
  out.str_field("qos", job.qos);
  if (n >= 42) out.str_field("qosreq", job.qos);
  write_dbd_required_v4x(out, job, cluster);
  out.str_field("kill_request_user", job.kill_request_uid || job.state == BaseState::cancelled ? job.user_name : "");
  if (n >= 42) out.int_field("restart_cnt", job.restart_cnt);
  out.key("reservation").begin_object().int_field("id", 0).str_field("name", job.reservation);
  if (n >= 43) out.str_field("requested", job.reservation);
  out.end_object();
  out.str_field("script", "");
  if (n >= 43) out.int_field("segment_size", 0);
  if (v45) out.str_field("original_sluid", format_sluid(job.original_sluid));
  if (n >= 41) write_dbd_io_v4x(out, job, v45);
  out.key("state").begin_object();
  out.string_array_field("current", state_array(job.state, job.flags));
  out.str_field("reason", job.state_reason);
  out.end_object();
  out.empty_array_field("steps");
  out.str_field("submit_line", "");
  out.key("tres").begin_object();
  tres_list(out, "allocated", job, cluster, job.allocated);
  tres_list(out, "requested", job, cluster, true);
  out.end_object();
  out.str_field("used_gres", "");
  out.str_field("user", job.user_name);
  out.key("wckey").begin_object().str_field("wckey", job.wckey).empty_array_field("flags").end_object();
  out.str_field("working_directory", job.cwd);
  out.end_object();
}

namespace {

// What every dialect's partition says of the whole cluster.
struct PartitionFacts {
  std::string node_list;
  std::int64_t total_cpus = 0;
  std::string tres;
  bool is_default = false;
};

PartitionFacts partition_facts(const std::string& name, const ClusterConfig& cluster) {
  PartitionFacts f;
  for (const auto& n : cluster.nodes) f.node_list += (f.node_list.empty() ? "" : ",") + n;
  f.total_cpus = static_cast<std::int64_t>(cluster.cpus_per_node * cluster.nodes.size());
  f.tres = "cpu=" + std::to_string(f.total_cpus) +
           ",mem=" + std::to_string(cluster.memory_per_node_mb * cluster.nodes.size()) +
           "M,node=" + std::to_string(cluster.nodes.size()) + ",billing=" + std::to_string(f.total_cpus);
  f.is_default = name == cluster.default_partition;
  return f;
}

void write_partition_v38(JsonWriter& out, const std::string& name, const PartitionFacts& f,
                         const ClusterConfig& cluster) {
  out.begin_object();
  out.key("flags").begin_array();
  if (f.is_default) out.string("default");
  out.end_array();
  out.key("preemption_mode").begin_array().string("disabled").end_array();
  out.str_field("allowed_allocation_nodes", "");
  out.str_field("allowed_accounts", "");
  out.str_field("allowed_groups", "");
  out.str_field("allowed_qos", "");
  out.str_field("alternative", "");
  out.str_field("billing_weights", "");
  out.null_field("default_memory_per_cpu");
  out.null_field("default_memory_per_node");
  out.null_field("default_time_limit");
  out.str_field("denied_accounts", "");
  out.str_field("denied_qos", "");
  out.int_field("preemption_grace_time", 0);
  out.int_field("maximum_cpus_per_node", -1);
  out.null_field("maximum_memory_per_cpu");
  out.null_field("maximum_memory_per_node");
  out.int_field("maximum_nodes_per_job", -1);
  out.int_field("max_time_limit", -1);
  out.int_field("min nodes per job", 0);
  out.str_field("name", name);
  out.str_field("nodes", f.node_list);
  out.null_field("over_time_limit");
  out.int_field("priority_job_factor", 1);
  out.int_field("priority_tier", 1);
  out.str_field("qos", "");
  out.str_field("state", "UP");
  out.int_field("total_cpus", f.total_cpus);
  out.int_field("total_nodes", static_cast<std::int64_t>(cluster.nodes.size()));
  out.str_field("tres", f.tres);
  out.end_object();
}

void write_partition_v4x(JsonWriter& out, const std::string& name, Dialect dialect, const PartitionFacts& f,
                         const ClusterConfig& cluster) {
  out.begin_object();
  const bool v45 = dialect == Dialect::v0045;
  out.key("nodes")
      .begin_object()
      .str_field("allowed_allocation", "")
      .str_field("configured", f.node_list)
      .int_field("total", static_cast<std::int64_t>(cluster.nodes.size()))
      .end_object();
  out.key("accounts").begin_object().str_field("allowed", "").str_field("deny", "").end_object();
  out.key("groups").begin_object().str_field("allowed", "").end_object();
  out.key("qos").begin_object().str_field("allowed", "").str_field("deny", "").str_field("assigned", "").end_object();
  out.str_field("alternate", "");
  out.key("tres").begin_object().str_field("billing_weights", "").str_field("configured", f.tres).end_object();
  out.str_field("cluster", "");
  if (dialect != Dialect::v0040) {
    out.key("select_type").begin_array();
    if (v45) {
      out.string("CR_CORE_MEMORY");
    } else {
      out.string("CORE").string("MEMORY");
    }
    out.end_array();
  }
  out.key("cpus").begin_object();
  if (v45) {
    out.empty_array_field("task_binding");
  } else {
    out.int_field("task_binding", 0);
  }
  out.int_field("total", f.total_cpus);
  out.end_object();
  out.key("defaults").begin_object();
  out.int_field("memory_per_cpu", static_cast<std::int64_t>(cluster.def_mem_per_cpu_mb));
  no_val_field(out, "partition_memory_per_cpu", static_cast<std::int64_t>(cluster.def_mem_per_cpu_mb));
  no_val_field(out, "partition_memory_per_node", 0, false);
  no_val_field(out, "time", 0, false, true);
  out.str_field("job", "");
  out.end_object();
  if (v45) {
    out.key("flags").begin_array();
    if (f.is_default) out.string("DEFAULT");
    out.end_array();
  }
  // Up to v0.0.42 (24.11's parsers.c) `partition` comes after `timeouts`.
  const bool early_partition = dialect_number(dialect) >= 43;
  auto partition_state = [&]() {
    out.key("partition").begin_object();
    if (v45) {
      out.str_field("exclusive", "");
      out.str_field("oversubscribe", "");
    }
    out.key("state").begin_array().string("UP").end_array();
    out.end_object();
  };
  if (early_partition) partition_state();
  out.int_field("grace_time", 0);
  out.key("maximums").begin_object();
  no_val_field(out, "cpus_per_node", 0, false, true);
  no_val_field(out, "cpus_per_socket", 0, false, true);
  out.int_field("memory_per_cpu", 0);
  no_val_field(out, "partition_memory_per_cpu", 0, false);
  no_val_field(out, "partition_memory_per_node", 0, false, true);
  no_val_field(out, "nodes", 0, false, true);
  out.int_field("shares", 1);
  out.key("oversubscribe").begin_object().int_field("jobs", 1).key("flags").begin_array().end_array().end_object();
  no_val_field(out, "time", 0, false, true);
  no_val_field(out, "over_time_limit", 0, false);
  out.end_object();
  out.key("minimums").begin_object().int_field("nodes", 0).end_object();
  out.str_field("name", name);
  out.str_field("node_sets", "");
  if (v45) out.key("preempt_mode").begin_array().string("DISABLED").end_array();
  out.key("priority").begin_object().int_field("job_factor", 1).int_field("tier", 1).end_object();
  out.key("timeouts").begin_object();
  no_val_field(out, "resume", 0, false);
  no_val_field(out, "suspend", 0, false);
  out.end_object();
  if (early_partition) {
    out.str_field("topology", "");
  } else {
    partition_state();
  }
  no_val_field(out, "suspend_time", 0, false);
  out.end_object();
}

}  // namespace

void write_partition(JsonWriter& out, const std::string& name, Dialect dialect, const ClusterConfig& cluster) {
  const PartitionFacts facts = partition_facts(name, cluster);
  if (is_v4x(dialect)) {
    write_partition_v4x(out, name, dialect, facts, cluster);
  } else {
    write_partition_v38(out, name, facts, cluster);
  }
}

}  // namespace tpslurm::sim
