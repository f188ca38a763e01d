// The v0.0.45/44/43/42/41/40 job record writer (see job_json.h): the fields in the order of the
// 26.05.3 transcripts, NO_VAL structs for numbers, verbose exit codes, job_resources.
#include "envelope.h"
#include "job_json.h"
#include "sluid.h"

namespace tpslurm::sim {

namespace {

void unset_field(JsonWriter& out, std::string_view name) { no_val_field(out, name, 0, false); }
void infinite_field(JsonWriter& out, std::string_view name) { no_val_field(out, name, 0, false, true); }

bool exited(std::int32_t status) { return (status & 0x7f) == 0; }
int exit_code_of(std::int32_t status) { return (status >> 8) & 0xff; }
int term_signal_of(std::int32_t status) { return status & 0x7f; }

std::vector<std::string> flags_v4x(const JobRecord& job) {
  std::vector<std::string> flags;
  const bool finished = is_finished(job.state);
  if (finished && job.allocated) flags.emplace_back("SKIP_TRES_STRING_ACCOUNTING");
  if (job.tasks) flags.emplace_back("EXACT_TASK_COUNT_REQUESTED");
  if (job.state == BaseState::running) flags.emplace_back("JOB_WAS_RUNNING");
  if (job.mem_per_node_mb || job.mem_per_cpu_mb) flags.emplace_back("EXACT_MEMORY_REQUESTED");
  if (job.account.empty()) flags.emplace_back("USING_DEFAULT_ACCOUNT");
  if (job.partition_defaulted) flags.emplace_back("USING_DEFAULT_PARTITION");
  if (job.qos.empty()) flags.emplace_back("USING_DEFAULT_QOS");
  if (job.wckey.empty()) flags.emplace_back("USING_DEFAULT_WCKEY");
  if (job.state == BaseState::pending && job.last_sched_eval > job.submit_time) {
    flags.emplace_back("BACKFILL_ATTEMPTED");
    flags.emplace_back("SCHEDULING_ATTEMPTED");
  }
  if (!job.nodes_requested && job.tasks) flags.emplace_back("JOB_IMPLICIT_MAX_NODES");
  if (job.partition_defaulted) flags.emplace_back("PARTITION_ASSIGNED");
  return flags;
}

// v0.0.45 names the consumable-resource mode as one flag ("CR_CORE_MEMORY"); earlier
// parsers list its parts ("CORE", "MEMORY").
void write_select_type(JsonWriter& out, Dialect dialect) {
  out.key("select_type").begin_array();
  if (dialect == Dialect::v0045) {
    out.string("CR_CORE_MEMORY");
  } else {
    out.string("CORE").string("MEMORY");
  }
  out.end_array();
}

// v0.0.40's JOB_RES: the node list as a string, counts, then each allocated node with its
// allocated cores keyed by socket and core index, as v0.0.38 wrote them (parsers.c and
// _dump_node_res() at slurm-23-11-11-1).
void write_job_resources_v40(JsonWriter& out, const JobRecord& job, const ClusterConfig& cluster) {
  const std::uint64_t mem = job.allocated_mem_mb(cluster.def_mem_per_cpu_mb);
  const std::vector<std::string> nodes = split_csv(job.nodes);
  const std::uint32_t cpus = job.total_cpus();
  out.begin_object();
  out.str_field("nodes", job.nodes);
  out.int_field("allocated_cores", cpus);
  out.int_field("allocated_cpus", cpus);
  out.int_field("allocated_hosts", static_cast<std::int64_t>(nodes.size()));
  out.key("allocated_nodes").begin_array();
  for (const auto& node : nodes) {
    out.begin_object();
    out.key("sockets").begin_object().key("0").begin_object().key("cores").begin_object();
    for (std::uint32_t core = 0; core < cpus && core < cluster.cpus_per_node; ++core) {
      out.str_field(std::to_string(core), "allocated");
    }
    out.end_object().end_object().end_object();
    out.str_field("nodename", node);
    out.int_field("cpus_used", 0);
    out.int_field("memory_used", 0);
    out.int_field("memory_allocated", static_cast<std::int64_t>(mem));
    out.end_object();
  }
  out.end_array();
  out.end_object();
}

void write_job_resources_v4x(JsonWriter& out, const JobRecord& job, Dialect dialect, const ClusterConfig& cluster) {
  out.key("job_resources");
  if (!job.allocated) {
    out.null();
    return;
  }
  if (dialect == Dialect::v0040) {
    write_job_resources_v40(out, job, cluster);
    return;
  }
  const std::uint64_t mem = job.allocated_mem_mb(cluster.def_mem_per_cpu_mb);
  const std::vector<std::string> nodes = split_csv(job.nodes);
  const std::uint32_t cpus = job.total_cpus();
  out.begin_object();
  write_select_type(out, dialect);
  out.key("nodes").begin_object();
  out.int_field("count", static_cast<std::int64_t>(nodes.size()));
  out.key("select_type").begin_array().string("ONE_ROW").end_array();
  out.str_field("list", job.nodes);
  out.bool_field("whole", false);
  out.key("allocation").begin_array();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    out.begin_object();
    out.int_field("index", static_cast<std::int64_t>(i));
    out.str_field("name", nodes[i]);
    out.key("cpus").begin_object().int_field("count", cpus).int_field("used", 0).end_object();
    out.key("memory")
        .begin_object()
        .int_field("used", 0)
        .int_field("allocated", static_cast<std::int64_t>(mem))
        .end_object();
    out.key("sockets").begin_array().begin_object();
    out.int_field("index", 0);
    out.key("cores").begin_array();
    for (std::uint32_t core = 0; core < cluster.cpus_per_node; ++core) {
      out.begin_object();
      out.int_field("index", core);
      out.key("status").begin_array().string(core < cpus ? "ALLOCATED" : "UNALLOCATED").end_array();
      out.end_object();
    }
    out.end_array();
    out.end_object().end_array();
    out.end_object();
  }
  out.end_array();
  out.end_object();
  out.int_field("cpus", cpus);
  unset_field(out, "threads_per_core");
  out.end_object();
}

std::string default_stdout(const JobRecord& job) { return job.std_out.empty() ? "slurm-%j.out" : job.std_out; }

}  // namespace

void write_exit_code_v4x(JsonWriter& out, std::int32_t status) {
  out.begin_object();
  if (exited(status)) {
    int code = exit_code_of(status);
    out.key("status").begin_array().string(code == 0 ? "SUCCESS" : "ERROR").end_array();
    no_val_field(out, "return_code", code);
    out.key("signal").begin_object();
    unset_field(out, "id");
    out.str_field("name", "");
    out.end_object();
  } else {
    int sig = term_signal_of(status);
    out.key("status").begin_array().string("SIGNALED").end_array();
    unset_field(out, "return_code");
    out.key("signal").begin_object();
    no_val_field(out, "id", sig);
    out.str_field("name", signal_name(sig));
    out.end_object();
  }
  out.end_object();
}

namespace {

// What the parts of a v0.0.4x job record need to know of the dialect and the cluster.
struct V4xView {
  Dialect dialect;
  Release release;
  const ClusterConfig& cluster;
  bool v45;
  int n;  // the dialect's number: 40 ... 45
  bool has_step_id;
  std::uint64_t def_mem;
};

// From account to exit_code: who, where, flags, CPU and exit information.
void write_v4x_identity(JsonWriter& out, const JobRecord& job, const V4xView& view) {
  const bool v45 = view.v45;
  const ClusterConfig& cluster = view.cluster;
  out.str_field("account", job.account);
  no_val_field(out, "accrue_time", job.accrue_time);
  out.str_field("admin_comment", "");
  out.str_field("allocating_node", "localhost");
  no_val_field(out, "array_job_id", job.array_job_id);
  no_val_field(out, "array_task_id", job.array_task_id.value_or(0), job.array_task_id.has_value());
  no_val_field(out, "array_max_tasks", job.array_max_tasks);
  out.str_field("array_task_string", job_array_task_string(job));
  out.int_field("association_id", 0);
  out.str_field("batch_features", "");
  out.bool_field("batch_flag", true);
  out.str_field("batch_host", batch_host(job));
  out.string_array_field("flags", flags_v4x(job));
  out.str_field("burst_buffer", "");
  out.str_field("burst_buffer_state", "");
  out.str_field("cluster", cluster.cluster_name);
  out.str_field("cluster_features", "");
  out.str_field("command", "");
  out.str_field("comment", job.comment);
  out.str_field("container", "");
  out.str_field("container_id", "");
  if (v45) out.str_field("container_type", "");
  out.bool_field("contiguous", false);
  out.int_field("core_spec", 0);
  out.int_field("thread_spec", 32766);
  unset_field(out, "cores_per_socket");
  out.key("billable_tres");
  write_no_val_double(out, job.allocated ? static_cast<double>(job.total_cpus()) : 0.0, job.allocated);
  no_val_field(out, "cpus_per_task", job.effective_cpus_per_task());
  unset_field(out, "cpu_frequency_minimum");
  unset_field(out, "cpu_frequency_maximum");
  unset_field(out, "cpu_frequency_governor");
  out.str_field("cpus_per_tres", "");
  out.str_field("cron", "");
  no_val_field(out, "deadline", 0);
  no_val_field(out, "delay_boot", 0);
  out.str_field("dependency", job.dependency);
  out.key("derived_exit_code");
  write_exit_code_v4x(out, job.derived_exit_status);
  no_val_field(out, "eligible_time", job.eligible_time);
  no_val_field(out, "end_time", job.end_time);
  out.str_field("excluded_nodes", "");
  out.key("exit_code");
  write_exit_code_v4x(out, job.exit_status);
}

// From extra to minimum_tmp_disk_per_node: features, het ids, resources, state, memory.
void write_v4x_request(JsonWriter& out, const JobRecord& job, const V4xView& view) {
  const bool v45 = view.v45;
  const int n = view.n;
  const std::uint64_t def_mem = view.def_mem;
  const Dialect dialect = view.dialect;
  const ClusterConfig& cluster = view.cluster;
  out.str_field("extra", "");
  out.str_field("failed_node", "");
  out.str_field("features", job.constraints);
  out.str_field("federation_origin", "");
  out.str_field("federation_siblings_active", "");
  out.str_field("federation_siblings_viable", "");
  out.key("gres_detail").begin_array();
  if (job.allocated && job.gpus) {
    out.string("gpu:" + std::to_string(job.gpus) + "(IDX:0" +
               (job.gpus > 1 ? "-" + std::to_string(job.gpus - 1) : std::string()) + ")");
  }
  out.end_array();
  out.int_field("group_id", job.group_id);
  out.str_field("group_name", job.group_name);
  no_val_field(out, "het_job_id", job.het_job_id);
  out.str_field("het_job_id_set", het_job_id_set(job));
  no_val_field(out, "het_job_offset", job.het_job_offset);
  out.int_field("job_id", job.job_id);
  write_job_resources_v4x(out, job, dialect, cluster);
  out.empty_array_field("job_size_str");
  out.string_array_field("job_state", state_array(job.state, job.flags, dialect));
  no_val_field(out, "last_sched_evaluation", job.last_sched_eval);
  out.str_field("licenses", "");
  if (n >= 43) out.str_field("licenses_allocated", "");
  out.empty_array_field("mail_type");
  out.str_field("mail_user", job.user_name);
  no_val_field(out, "max_cpus", 0);
  no_val_field(out, "max_nodes", 0);
  out.str_field("mcs_label", "");
  out.str_field("memory_per_tres", "");
  if (v45) {
    out.int_field("memory_update_delay", 0);
    out.int_field("memory_update_margin", 0);
  }
  out.str_field("name", job.name);
  out.str_field("network", "");
  out.str_field("nodes", job.allocated ? job.nodes : "");
  out.int_field("nice", 0);
  infinite_field(out, "tasks_per_core");
  no_val_field(out, "tasks_per_tres", 0);
  no_val_field(out, "tasks_per_node", 0);
  infinite_field(out, "tasks_per_socket");
  no_val_field(out, "tasks_per_board", 0);
  no_val_field(out, "cpus", job.total_cpus());
  no_val_field(out, "node_count", job.min_nodes);
  no_val_field(out, "tasks", job.effective_tasks());
  out.str_field("partition", job.partition);
  out.str_field("prefer", "");
  if (job.mem_per_node_mb) {
    unset_field(out, "memory_per_cpu");
    no_val_field(out, "memory_per_node", static_cast<std::int64_t>(job.mem_per_node_mb));
  } else {
    no_val_field(out, "memory_per_cpu", static_cast<std::int64_t>(job.mem_per_cpu_mb ? job.mem_per_cpu_mb : def_mem));
    unset_field(out, "memory_per_node");
  }
  no_val_field(out, "minimum_cpus_per_node", job.effective_cpus_per_task());
  no_val_field(out, "minimum_tmp_disk_per_node", 0);
  if (!v45) out.key("power").begin_object().empty_array_field("flags").end_object();
}

// From preempt_time to state_reason: priority, requeue, shared, step_id, times.
void write_v4x_scheduling(JsonWriter& out, const JobRecord& job, const V4xView& view) {
  const int n = view.n;
  const bool has_step_id = view.has_step_id;
  no_val_field(out, "preempt_time", 0);
  no_val_field(out, "preemptable_time", 0);
  no_val_field(out, "pre_sus_time", 0);
  out.bool_field("hold", job.hold && job.state == BaseState::pending);
  no_val_field(out, "priority", job.priority);
  if (n >= 42) out.empty_array_field("priority_by_partition");
  out.key("profile").begin_array().string("NOT_SET").end_array();
  out.str_field("qos", job.qos);
  out.bool_field("reboot", false);
  out.str_field("required_nodes", "");
  out.int_field(n >= 42 ? "required_switches" : "minimum_switches", 0);
  out.bool_field("requeue", job.requeue);
  no_val_field(out, "resize_time", 0);
  out.int_field("restart_cnt", job.restart_cnt);
  out.str_field("resv_name", job.reservation);
  out.str_field("scheduled_nodes", "");
  if (n >= 43) out.int_field("segment_size", 0);
  out.str_field("selinux_context", "");
  out.empty_array_field("shared");
  if (n <= 41) {
    // Deprecated views of `shared` (unset: no flag, and a true BOOL16), and the show flags
    // slurmrestd asked with (SHOW_ALL | SHOW_DETAIL; slurmctld adds SHOW_LOCAL).
    out.empty_array_field("exclusive");
    out.bool_field("oversubscribe", true);
    out.key("show_flags").begin_array().string("ALL").string("DETAIL").string("LOCAL").end_array();
  }
  if (has_step_id) {
    out.key("step_id").begin_object();
    out.str_field("sluid", format_sluid(job.sluid));
    no_val_field(out, "job_id", job.job_id);
    unset_field(out, "step_het_component");
    out.str_field("step_id", "entire");
    out.end_object();
  }
  out.int_field("sockets_per_board", 0);
  unset_field(out, "sockets_per_node");
  no_val_field(out, "start_time", job.start_time);
  out.str_field("state_description", "");
  out.str_field("state_reason", job.state_reason);
}

// From the standard_* paths to current_working_directory: I/O paths, limits, TRES, user.
void write_v4x_io_and_limits(JsonWriter& out, const JobRecord& job, const V4xView& view) {
  const int n = view.n;
  const bool has_step_id = view.has_step_id;
  const std::uint64_t def_mem = view.def_mem;
  const Release release = view.release;
  if (n <= 42) {
    // Before v0.0.43 the standard_* fields are the expanded paths (slurm_get_job_stdout()
    // and friends: stdin defaults to /dev/null, stderr to stdout), no *_expanded fields.
    out.str_field("standard_error", job.expand_path(job.std_err.empty() ? default_stdout(job) : job.std_err, false));
    out.str_field("standard_input", job.std_in.empty() ? "/dev/null" : job.expand_path(job.std_in, false));
    out.str_field("standard_output", job.expand_path(default_stdout(job), false));
  } else {
    out.str_field("standard_input", job.std_in);
    out.str_field("standard_output", default_stdout(job));
    out.str_field("standard_error", job.std_err);
    const bool sluid_patterns = release == Release::r26_05_3 || release == Release::r25_11_7;
    out.str_field("stdin_expanded", job.expand_path(job.std_in, sluid_patterns));
    out.str_field("stdout_expanded", job.expand_path(default_stdout(job), sluid_patterns));
    out.str_field("stderr_expanded", job.expand_path(job.std_err, sluid_patterns));
  }
  no_val_field(out, "submit_time", job.submit_time);
  if (has_step_id) out.str_field("submit_line", "");
  no_val_field(out, "suspend_time", 0);
  out.str_field("system_comment", "");
  if (job.time_limit_min) {
    no_val_field(out, "time_limit", *job.time_limit_min);
  } else {
    infinite_field(out, "time_limit");
  }
  no_val_field(out, "time_minimum", 0);
  unset_field(out, "threads_per_core");
  write_tres_strings(out, job, def_mem);
  out.int_field("user_id", job.user_id);
  out.str_field("user_name", job.user_name);
  out.int_field("maximum_switch_wait_time", 0);
  out.str_field("wckey", job.wckey);
  out.str_field("current_working_directory", job.cwd);
}

}  // namespace

void write_job_v4x(JsonWriter& out, const JobRecord& job, Dialect dialect, Release release,
                   const ClusterConfig& cluster) {
  const int n = dialect_number(dialect);
  const V4xView view{dialect, release, cluster, dialect == Dialect::v0045, n, n >= 44, cluster.def_mem_per_cpu_mb};
  out.begin_object();
  write_v4x_identity(out, job, view);
  write_v4x_request(out, job, view);
  write_v4x_scheduling(out, job, view);
  write_v4x_io_and_limits(out, job, view);
  out.end_object();
}

}  // namespace tpslurm::sim
