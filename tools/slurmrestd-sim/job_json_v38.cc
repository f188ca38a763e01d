// The v0.0.38 job record writer (see job_json.h): 22.05.8's dump_job_info, plain integers
// with `null` for NO_VAL fields.
#include "job_json.h"

namespace tpslurm::sim {

namespace {

// v0.0.38's job fields from "account" to "job_id": who, where, flags, features, GRES.
void write_job_v38_identity(JsonWriter& out, const JobRecord& job, const ClusterConfig& cluster) {
  const bool finished = is_finished(job.state);
  out.str_field("account", job.account);
  out.int_field("accrue_time", job.accrue_time);
  out.str_field("admin_comment", "");
  out.int_field("array_job_id", job.array_job_id);
  if (job.array_task_id) {
    out.int_field("array_task_id", *job.array_task_id);
  } else {
    out.null_field("array_task_id");
  }
  out.int_field("array_max_tasks", job.array_max_tasks);
  out.str_field("array_task_string", job_array_task_string(job));
  out.int_field("association_id", 0);
  out.str_field("batch_features", "");
  out.bool_field("batch_flag", true);
  out.str_field("batch_host", batch_host(job));
  out.key("flags").begin_array();
  if (finished && job.allocated) out.string("TRES_STR_CALC");
  if (job.cpus_per_task && !job.is_het()) out.string("JOB_CPUS_SET");
  if (job.state == BaseState::running) out.string("JOB_WAS_RUNNING");
  if (job.mem_per_node_mb || job.mem_per_cpu_mb) out.string("JOB_MEM_SET");
  out.end_array();
  out.str_field("burst_buffer", "");
  out.str_field("burst_buffer_state", "");
  out.str_field("cluster", cluster.cluster_name);
  out.str_field("cluster_features", "");
  out.str_field("command", "");
  out.str_field("comment", job.comment);
  out.str_field("container", "");
  out.bool_field("contiguous", false);
  out.null_field("core_spec");
  out.null_field("thread_spec");
  out.null_field("cores_per_socket");
  if (job.allocated) {
    out.key("billable_tres").number(static_cast<double>(job.total_cpus()));
  } else {
    out.null_field("billable_tres");
  }
  // 22.05 tests cpu_freq_min instead of cpus_per_task here, so this is always null.
  out.null_field("cpus_per_task");
  out.null_field("cpu_frequency_minimum");
  out.null_field("cpu_frequency_maximum");
  out.null_field("cpu_frequency_governor");
  out.str_field("cpus_per_tres", "");
  out.int_field("deadline", 0);
  out.int_field("delay_boot", 0);
  out.str_field("dependency", job.dependency);
  out.int_field("derived_exit_code", job.derived_exit_status);
  out.int_field("eligible_time", job.eligible_time);
  out.int_field("end_time", job.end_time);
  out.str_field("excluded_nodes", "");
  out.int_field("exit_code", job.exit_status);
  out.str_field("features", job.constraints);
  out.str_field("federation_origin", "");
  out.str_field("federation_siblings_active", "");
  out.str_field("federation_siblings_viable", "");
  out.key("gres_detail").begin_array();
  if (job.allocated && job.gpus) out.string("gpu:" + std::to_string(job.gpus) + "(IDX:0)");
  out.end_array();
  out.int_field("group_id", job.group_id);
  out.str_field("group_name", job.group_name);
  out.int_field("job_id", job.job_id);
}

// v0.0.38's "job_resources" of an allocated job: its nodes and their allocated cores.
void write_job_resources_v38(JsonWriter& out, const JobRecord& job, const ClusterConfig& cluster) {
  const std::uint64_t def_mem = cluster.def_mem_per_cpu_mb;
  const std::vector<std::string> nodes = split_csv(job.nodes);
  out.key("job_resources").begin_object();
  out.str_field("nodes", job.nodes);
  out.int_field("allocated_cores", job.total_cpus());
  out.int_field("allocated_hosts", static_cast<std::int64_t>(nodes.size()));
  out.key("allocated_nodes").begin_array();
  for (const auto& node : nodes) {
    out.begin_object();
    out.key("sockets").begin_object();
    out.key("0").begin_object();
    out.key("cores").begin_object();
    for (std::uint32_t core = 0; core < job.total_cpus() && core < cluster.cpus_per_node; ++core) {
      out.str_field(std::to_string(core), "allocated");
    }
    out.end_object();
    out.end_object();
    out.end_object();
    out.str_field("nodename", node);
    out.int_field("cpus_used", 0);
    out.int_field("memory_used", 0);
    out.int_field("memory_allocated", static_cast<std::int64_t>(job.allocated_mem_mb(def_mem)));
    out.end_object();
  }
  out.end_array();
  out.end_object();
}

// v0.0.38's job fields from "job_state" to "priority": state and what the job asked for.
void write_job_v38_request(JsonWriter& out, const JobRecord& job, const ClusterConfig& cluster) {
  const std::uint64_t def_mem = cluster.def_mem_per_cpu_mb;
  const bool tasks_known = job.tasks != 0 || job.allocated;
  out.str_field("job_state", state_string_v38(job.state, job.flags));
  out.int_field("last_sched_evaluation", job.last_sched_eval);
  out.str_field("licenses", "");
  out.int_field("max_cpus", 0);
  out.int_field("max_nodes", 0);
  out.str_field("mcs_label", "");
  out.str_field("memory_per_tres", "");
  out.str_field("name", job.name);
  out.str_field("nodes", job.allocated ? job.nodes : "");
  out.null_field("nice");
  out.null_field("tasks_per_core");
  out.int_field("tasks_per_node", 0);
  out.null_field("tasks_per_socket");
  out.int_field("tasks_per_board", 0);
  if (tasks_known) {
    out.int_field("cpus", job.total_cpus());
  } else {
    out.null_field("cpus");
  }
  out.int_field("node_count", job.min_nodes);
  if (tasks_known) {
    out.int_field("tasks", job.effective_tasks());
  } else {
    out.null_field("tasks");
  }
  out.int_field("het_job_id", job.het_job_id);
  out.str_field("het_job_id_set", het_job_id_set(job));
  out.int_field("het_job_offset", job.het_job_offset);
  out.str_field("partition", job.partition);
  out.str_field("prefer", "");
  if (job.mem_per_node_mb) {
    out.int_field("memory_per_node", static_cast<std::int64_t>(job.mem_per_node_mb));
    out.null_field("memory_per_cpu");
  } else {
    out.null_field("memory_per_node");
    out.int_field("memory_per_cpu", static_cast<std::int64_t>(job.mem_per_cpu_mb ? job.mem_per_cpu_mb : def_mem));
  }
  out.int_field("minimum_cpus_per_node", job.effective_cpus_per_task());
  out.int_field("minimum_tmp_disk_per_node", 0);
  out.int_field("preempt_time", 0);
  out.int_field("pre_sus_time", 0);
  // 22.05 counts priorities down from a large base; a held job has 0.
  out.int_field("priority", job.priority == 0 ? 0 : std::int64_t{4294901760} - job.job_id);
}

// v0.0.38's job fields from "profile" on: requeue, times, files, TRES, user.
void write_job_v38_status(JsonWriter& out, const JobRecord& job, const ClusterConfig& cluster) {
  const std::uint64_t def_mem = cluster.def_mem_per_cpu_mb;
  out.null_field("profile");
  out.str_field("qos", job.qos);
  out.bool_field("reboot", false);
  out.str_field("required_nodes", "");
  out.bool_field("requeue", job.requeue);
  out.int_field("resize_time", 0);
  out.int_field("restart_cnt", job.restart_cnt);
  out.str_field("resv_name", job.reservation);
  out.null_field("shared");
  out.key("show_flags").begin_array().string("SHOW_ALL").string("SHOW_DETAIL").string("SHOW_LOCAL").end_array();
  out.int_field("sockets_per_board", 0);
  out.null_field("sockets_per_node");
  out.int_field("start_time", job.start_time);
  out.str_field("state_description", "");
  out.str_field("state_reason", job.state_reason);
  out.str_field("standard_error", job.std_err);
  out.str_field("standard_input", job.std_in);
  out.str_field("standard_output", job.std_out);
  out.int_field("submit_time", job.submit_time);
  out.int_field("suspend_time", 0);
  out.str_field("system_comment", "");
  if (job.time_limit_min) {
    out.int_field("time_limit", *job.time_limit_min);
  } else {
    out.null_field("time_limit");
  }
  out.int_field("time_minimum", 0);
  out.null_field("threads_per_core");
  write_tres_strings(out, job, def_mem);
  out.int_field("user_id", job.user_id);
  out.str_field("user_name", job.user_name);
  out.str_field("wckey", job.wckey);
  out.str_field("current_working_directory", job.cwd);
}

}  // namespace

void write_job_v38(JsonWriter& out, const JobRecord& job, const ClusterConfig& cluster) {
  out.begin_object();
  write_job_v38_identity(out, job, cluster);
  if (job.allocated) write_job_resources_v38(out, job, cluster);
  write_job_v38_request(out, job, cluster);
  write_job_v38_status(out, job, cluster);
  out.end_object();
}

}  // namespace tpslurm::sim
