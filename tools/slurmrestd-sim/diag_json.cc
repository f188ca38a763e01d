#include "diag_json.h"

#include <initializer_list>
#include <string_view>

#include "envelope.h"

namespace tpslurm::sim {

namespace {

constexpr std::int64_t kServerThreads = 1;         // the thread answering this request
constexpr std::int64_t kGettimeofdayLatency = 30;  // microseconds per 1000 calls, as diag.txt shows

std::int64_t as_int(std::uint64_t v) { return static_cast<std::int64_t>(v); }

void zeros(JsonWriter& out, std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) out.int_field(name, 0);
}

// An object of zeros: schedule_exit and bf_exit.
void zero_object(JsonWriter& out, std::string_view name, std::initializer_list<std::string_view> names) {
  out.key(name).begin_object();
  zeros(out, names);
  out.end_object();
}

// A time: a plain integer in v0.0.38, a no-value struct from v0.0.40.
void time_field(JsonWriter& out, std::string_view name, std::int64_t value, bool plain) {
  if (plain) {
    out.int_field(name, value);
    return;
  }
  out.key(name);
  write_no_val(out, value);
}

// The request's times and the agents, the same in every version but v0.0.45's missing parts_packed.
void write_head(JsonWriter& out, const DiagSnapshot& s, bool plain_times, bool parts_packed) {
  if (parts_packed) out.int_field("parts_packed", 1);
  time_field(out, "req_time", s.req_time, plain_times);
  time_field(out, "req_time_start", s.req_time_start, plain_times);
  out.int_field("server_thread_count", kServerThreads);
  zeros(out, {"agent_queue_size", "agent_count", "agent_thread_count"});
  out.int_field("dbd_agent_queue_size", as_int(s.dbd_agent_queue_size));
  out.int_field("gettimeofday_latency", kGettimeofdayLatency);
}

// The job counters and job_states_ts.
void write_jobs(JsonWriter& out, const DiagSnapshot& s, bool plain_times) {
  out.int_field("jobs_submitted", as_int(s.jobs.submitted));
  out.int_field("jobs_started", as_int(s.jobs.started));
  out.int_field("jobs_completed", as_int(s.jobs.completed));
  out.int_field("jobs_canceled", as_int(s.jobs.canceled));
  out.int_field("jobs_failed", as_int(s.jobs.failed));
  out.int_field("jobs_pending", as_int(s.jobs_pending));
  out.int_field("jobs_running", as_int(s.jobs_running));
  time_field(out, "job_states_ts", s.job_states_ts, plain_times);
}

// The exit reasons of the main scheduler and of backfill.
void schedule_exit(JsonWriter& out) {
  zero_object(out, "schedule_exit",
              {"end_job_queue", "default_queue_depth", "max_job_start", "max_rpc_cnt", "max_sched_time", "licenses"});
}
void backfill_exit(JsonWriter& out) {
  zero_object(
      out, "bf_exit",
      {"end_job_queue", "bf_max_job_start", "bf_max_job_test", "bf_max_time", "bf_node_space_size", "state_changed"});
}

// The RPC tables with plain-integer times, as v0.0.38 and v0.0.40 write them.
void write_plain_rpcs(JsonWriter& out, const DiagSnapshot& s) {
  out.key("rpcs_by_message_type").begin_array();
  for (const auto& t : s.rpcs_by_type) {
    out.begin_object();
    out.str_field("message_type", t.message_type).int_field("type_id", t.type_id).int_field("count", as_int(t.count));
    out.int_field("average_time", as_int(t.average_us())).int_field("total_time", as_int(t.total_us));
    out.end_object();
  }
  out.end_array();
  out.key("rpcs_by_user").begin_array();
  for (const auto& u : s.rpcs_by_user) {
    out.begin_object();
    out.str_field("user", u.user).int_field("user_id", u.user_id).int_field("count", as_int(u.count));
    out.int_field("average_time", as_int(u.average_us())).int_field("total_time", as_int(u.total_us));
    out.end_object();
  }
  out.end_array();
}

void write_v38(JsonWriter& out, const DiagSnapshot& s) {
  write_plain_rpcs(out, s);
  write_head(out, s, true, true);
  zeros(out, {"schedule_cycle_max", "schedule_cycle_last", "schedule_cycle_total", "schedule_cycle_mean",
              "schedule_cycle_mean_depth", "schedule_cycle_per_minute", "schedule_queue_length"});
  write_jobs(out, s, true);
  zeros(out, {"bf_backfilled_jobs", "bf_last_backfilled_jobs", "bf_backfilled_het_jobs", "bf_cycle_counter",
              "bf_cycle_mean", "bf_depth_mean", "bf_depth_mean_try", "bf_cycle_last", "bf_cycle_max", "bf_queue_len",
              "bf_queue_len_mean", "bf_table_size", "bf_table_size_mean", "bf_when_last_cycle"});
  out.bool_field("bf_active", false);
}

// v0.0.40's STATS_MSG (parsers.c at slurm-23-11-11-1): no cycle sums or depths, the exit
// reasons after their sections, plain-integer RPC average times, no pending RPCs.
void write_v40(JsonWriter& out, const DiagSnapshot& s) {
  write_head(out, s, false, true);
  zeros(out, {"schedule_cycle_max", "schedule_cycle_last", "schedule_cycle_total", "schedule_cycle_mean",
              "schedule_cycle_mean_depth", "schedule_cycle_per_minute", "schedule_queue_length"});
  schedule_exit(out);
  write_jobs(out, s, false);
  zeros(out, {"bf_backfilled_jobs", "bf_last_backfilled_jobs", "bf_backfilled_het_jobs", "bf_cycle_counter",
              "bf_cycle_mean", "bf_depth_mean", "bf_depth_mean_try", "bf_cycle_sum", "bf_cycle_last", "bf_last_depth",
              "bf_last_depth_try", "bf_depth_sum", "bf_depth_try_sum", "bf_queue_len", "bf_queue_len_mean",
              "bf_queue_len_sum", "bf_table_size", "bf_table_size_mean"});
  time_field(out, "bf_when_last_cycle", 0, false);
  out.bool_field("bf_active", false);
  backfill_exit(out);
  write_plain_rpcs(out, s);
}

void write_v4x(JsonWriter& out, const DiagSnapshot& s, Dialect dialect) {
  write_head(out, s, false, dialect != Dialect::v0045);  // parts_packed: dropped in v0.0.45
  zeros(out, {"schedule_cycle_max", "schedule_cycle_last", "schedule_cycle_sum", "schedule_cycle_total",
              "schedule_cycle_mean", "schedule_cycle_mean_depth", "schedule_cycle_per_minute", "schedule_cycle_depth"});
  schedule_exit(out);
  out.int_field("schedule_queue_length", 0);
  write_jobs(out, s, false);
  zeros(out, {"bf_backfilled_jobs", "bf_last_backfilled_jobs", "bf_backfilled_het_jobs", "bf_cycle_counter",
              "bf_cycle_mean", "bf_depth_mean", "bf_depth_mean_try", "bf_cycle_sum", "bf_cycle_last", "bf_cycle_max"});
  backfill_exit(out);
  zeros(out, {"bf_last_depth", "bf_last_depth_try", "bf_depth_sum", "bf_depth_try_sum", "bf_queue_len",
              "bf_queue_len_mean", "bf_queue_len_sum", "bf_table_size", "bf_table_size_sum", "bf_table_size_mean"});
  time_field(out, "bf_when_last_cycle", 0, false);
  out.bool_field("bf_active", false);
  out.key("rpcs_by_message_type").begin_array();
  for (const auto& t : s.rpcs_by_type) {
    out.begin_object();
    out.int_field("type_id", t.type_id).str_field("message_type", t.message_type).int_field("count", as_int(t.count));
    zeros(out, {"queued", "dropped", "cycle_last", "cycle_max"});
    out.int_field("total_time", as_int(t.total_us));
    time_field(out, "average_time", as_int(t.average_us()), false);
    out.end_object();
  }
  out.end_array();
  out.key("rpcs_by_user").begin_array();
  for (const auto& u : s.rpcs_by_user) {
    out.begin_object();
    out.int_field("user_id", u.user_id).str_field("user", u.user).int_field("count", as_int(u.count));
    out.int_field("total_time", as_int(u.total_us));
    time_field(out, "average_time", as_int(u.average_us()), false);
    out.end_object();
  }
  out.end_array();
  out.empty_array_field("pending_rpcs");
  out.empty_array_field("pending_rpcs_by_hostlist");
}

}  // namespace

void write_diag_statistics(JsonWriter& out, const DiagSnapshot& snapshot, Dialect dialect) {
  out.key("statistics").begin_object();
  if (dialect == Dialect::v0040) {
    write_v40(out, snapshot);
  } else if (is_v4x(dialect)) {
    write_v4x(out, snapshot, dialect);
  } else {
    write_v38(out, snapshot);
  }
  out.end_object();
}

}  // namespace tpslurm::sim
