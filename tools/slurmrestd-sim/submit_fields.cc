#include "submit_fields.h"

#include <algorithm>
#include <array>

namespace tpslurm::sim {

namespace {

constexpr std::string_view kFieldsV45[] = {
    "account", "account_gather_frequency", "admin_comment", "allocation_node_list", "allocation_node_port",
    "argv", "array", "batch_features", "begin_time", "flags", "burst_buffer", "clusters",
    "cluster_constraint", "comment", "contiguous", "container", "container_id", "container_type",
    "core_specification", "thread_specification", "cpu_binding", "cpu_binding_flags", "cpu_frequency",
    "cpus_per_tres", "crontab", "deadline", "delay_boot", "dependency", "end_time", "environment",
    "rlimits", "excluded_nodes", "extra", "constraints", "group_id", "hetjob_group", "immediate",
    "job_id", "kill_on_node_fail", "licenses", "mail_type", "mail_user", "mcs_label", "memory_binding",
    "memory_binding_type", "memory_per_tres", "memory_update_margin", "memory_update_delay", "name",
    "network", "nice", "tasks", "oom_kill_step", "open_mode", "reserve_ports", "overcommit", "partition",
    "distribution_plane_size", "prefer", "hold", "priority", "profile", "qos", "reboot", "required_nodes",
    "requeue", "reservation", "script", "shared", "site_factor", "spank_environment", "step_id",
    "distribution", "time_limit", "time_minimum", "tres_bind", "tres_freq", "tres_per_job",
    "tres_per_node", "tres_per_socket", "tres_per_task", "user_id", "wait_all_nodes",
    "kill_warning_flags", "kill_warning_signal", "kill_warning_delay", "current_working_directory",
    "cpus_per_task", "minimum_cpus", "maximum_cpus", "nodes", "minimum_nodes", "maximum_nodes",
    "minimum_boards_per_node", "minimum_sockets_per_board", "sockets_per_node", "cores_per_socket",
    "threads_per_core", "tasks_per_node", "tasks_per_socket", "tasks_per_core", "tasks_per_board",
    "ntasks_per_tres", "minimum_cpus_per_node", "memory_per_cpu", "memory_per_node",
    "temporary_disk_per_node", "selinux_context", "required_switches", "segment_size", "standard_error",
    "standard_input", "standard_output", "wait_for_switch", "wckey", "x11", "x11_magic_cookie",
    "x11_target_host", "x11_target_port",
};

// Present only in v0.0.45 (26.05).
constexpr std::string_view kOnlyV45[] = {"container_type", "memory_update_margin", "memory_update_delay",
                                         "cores_per_socket"};

struct V38Param {
  std::string_view name;
  bool disabled;
};

// 22.05's job_params (openapi/v0.0.38/jobs.c), already lower-case.
constexpr V38Param kParamsV38[] = {
    {"accelerator_binding", true}, {"account", false}, {"account_gather_frequency", false},
    {"allocation_node_list", true}, {"array", false}, {"argv", false}, {"batch_features", false},
    {"begin_time", false}, {"bell", true}, {"burst_buffer_file", true}, {"burst_buffer", false},
    {"cluster_constraint", false}, {"cluster", true}, {"clusters", true}, {"comment", false},
    {"compress", true}, {"constraint", false}, {"constraints", false}, {"contiguous", true},
    {"core_specification", false}, {"cores_per_socket", false}, {"cpu_binding_hint", false},
    {"cpu_binding", true}, {"cpu_frequency", false}, {"cpus_per_gpu", false}, {"cpus_per_task", false},
    {"current_working_directory", false}, {"cwd", false}, {"deadline", false}, {"debugger_test", true},
    {"delay_boot", false}, {"dependency", false}, {"disable_status", true}, {"distribution", false},
    {"environment", false}, {"epilog", true}, {"exclude_nodes", false}, {"excluded_nodes", true},
    {"exclusive", false}, {"export_file", true}, {"export", true}, {"extra_node_info", true},
    {"get_user_environment", false}, {"gpu_binding", false}, {"gpu_frequency", false}, {"gpus", false},
    {"gpus_per_node", false}, {"gpus_per_socket", false}, {"gpus_per_task", false}, {"gres_flags", false},
    {"gres", false}, {"group_id", true}, {"help", true}, {"hold", false}, {"ignore_pbs", true},
    {"immediate", true}, {"job_id", true}, {"job_name", false}, {"kill_command", true},
    {"kill_on_bad_exit", true}, {"kill_on_invalid_dependency", false}, {"label", true}, {"license", false},
    {"licenses", false}, {"mail_type", false}, {"mail_user", false}, {"max_threads", true},
    {"mcs_label", false}, {"memory_binding", false}, {"memory_per_cpu", false}, {"memory_per_gpu", false},
    {"memory_per_node", false}, {"message_timeout", true}, {"minimum_cpus_per_node", false},
    {"minimum_nodes", false}, {"mpi", true}, {"multiple_program", true}, {"name", false}, {"network", true},
    {"nice", false}, {"no_allocation", true}, {"no_bell", true}, {"nodefile", true}, {"nodelist", false},
    {"node_list", false}, {"nodes", false}, {"no_kill", false}, {"no_requeue", false}, {"no_shell", true},
    {"open_mode", false}, {"overcommit", true}, {"oversubscribe", true}, {"hetjob_group", true},
    {"parsable", true}, {"partition", false}, {"power_flags", true}, {"preserve_environment", true},
    {"priority", false}, {"profile", false}, {"prolog", true}, {"propagate", true}, {"pty", true},
    {"qos", false}, {"quiet", true}, {"quit_on_interrupt", true}, {"reboot", true}, {"relative", true},
    {"requeue", false}, {"required_nodes", true}, {"required_switches", true}, {"reservation", false},
    {"reserve_port", true}, {"reserve_ports", true}, {"signal", false}, {"slurmd_debug", true},
    {"sockets_per_node", false}, {"spread_job", false}, {"standard_error", false},
    {"standard_input", false}, {"standard_output", false}, {"task_epilog", true}, {"task_prolog", true},
    {"tasks", false}, {"ntasks", false}, {"tasks_per_core", false}, {"ntasks_per_core", false},
    {"ntasks_per_gpu", false}, {"tasks_per_node", false}, {"ntasks_per_node", false},
    {"tasks_per_socket", false}, {"ntasks_per_socket", false}, {"ntasks_per_tres", false},
    {"temporary_disk_per_node", false}, {"test_only", false}, {"thread_specification", false},
    {"threads_per_core", false}, {"threads", true}, {"time_limit", false}, {"time_minimum", false},
    {"umask", false}, {"unbuffered", true}, {"unknown", true}, {"usage", true}, {"user_id", true},
    {"version", true}, {"verbose", true}, {"wait_all_nodes", false}, {"wait_for_switch", true},
    {"wait", true}, {"wckey", false}, {"wrap", true}, {"x11", true},
};

}  // namespace

bool is_known_field_v4x(Dialect dialect, std::string_view key) {
  if (std::find(std::begin(kFieldsV45), std::end(kFieldsV45), key) == std::end(kFieldsV45)) {
    return dialect != Dialect::v0045 && key == "power_flags";
  }
  if (dialect != Dialect::v0045 &&
      std::find(std::begin(kOnlyV45), std::end(kOnlyV45), key) != std::end(kOnlyV45)) {
    return false;
  }
  if (dialect_number(dialect) <= 43 && key == "step_id") return false;
  return true;
}

V38Key classify_key_v38(std::string_view lower_key) {
  for (const auto& p : kParamsV38) {
    if (p.name == lower_key) return p.disabled ? V38Key::disabled : V38Key::known;
  }
  return V38Key::unknown;
}

}  // namespace tpslurm::sim
