// SlurmApi: construction, routing (handle), and the calls that are neither about jobs nor
// about slurmdbd: ping and diag.
#include "slurm_api.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <set>
#include <unordered_set>

#include "auth.h"
#include "dbd_json.h"
#include "diag_json.h"
#include "envelope.h"
#include "job_json.h"
#include "json_writer.h"
#include "sluid.h"
#include "slurm_api_support.h"
#include "slurm_errors.h"
#include "slurm_signals.h"
#include "slurm_time.h"
#include "submit_request.h"
#include "update_request.h"

namespace tpslurm::sim {

using namespace api_support;

SlurmApi::SlurmApi(const SimOptions& options, SimClock& clock, JobStore& store, Stats& stats, FaultPlan& faults)
    : m_options(options), m_clock(clock), m_store(store), m_stats(stats), m_faults(faults) {
  // Every slurmd registered with the controller when the cluster came up (as SlurmUser).
  for (std::size_t i = 0; i < m_options.cluster.nodes.size(); ++i) {
    m_rpcs.record(Rpc::node_registration, m_options.slurm_user, uid_of(m_options.slurm_user));
  }
}

void SlurmApi::rpc(const Call& call, Rpc type) { m_rpcs.record(type, call.identity.user, call.identity.uid); }

bool SlurmApi::hidden(const Call& call, const JobRecord& job) const {
  return m_options.private_jobs && !call.identity.privileged && job.user_id != call.identity.uid;
}

std::string SlurmApi::route_key(const std::string& method, const Target& target) {
  const auto& s = target.segments;
  std::string key = method + " ";
  for (std::size_t i = 0; i < s.size(); ++i) {
    std::string part = s[i];
    const bool slurm = !s.empty() && (s[0] == "slurm" || s[0] == "slurmdb");
    if (slurm && i == 3 && s.size() == 4 && s[2] == "job" && part != "submit" && part != "allocate") {
      part = "{job_id}";
    } else if (slurm && i == 3 && s.size() == 4 && s[2] == "partition") {
      part = "{partition_name}";
    } else if (s.size() > 2 && s[0] == "sim" && s[1] == "jobs" && i == 2 && all_digits(part)) {
      part = "{job_id}";
    }
    key += "/" + part;
  }
  if (s.empty()) key += "/";
  return key;
}

HttpReply SlurmApi::handle(const HttpRequest& request, const Target& target, const Identity& identity) {
  const auto& seg = target.segments;
  if (seg.size() < 2 || (seg[0] != "slurm" && seg[0] != "slurmdb")) return not_found_url();
  Dialect dialect = Dialect::v0045;
  if (version_support(m_options.release, seg[1], &dialect) != VersionSupport::implemented) return not_found_url();
  const bool dbd = seg[0] == "slurmdb";
  // The openapi/slurmdbd plugin refuses to load on a cluster without slurmdbd.
  if (dbd && !m_options.cluster.accounting) return not_found_url();
  if (!target.path_valid) {
    int status = invalid_path_status(m_options.release);
    return text_reply(status, status == 404 ? "Unable to find requested URL" : "Unable to parse URL path.", true);
  }

  Call call{request, target, identity, {}, dbd};
  call.ctx.release = m_options.release;
  call.ctx.dialect = dialect;
  call.ctx.slurmdbd = dbd;
  call.ctx.user = identity.user;
  call.ctx.group = group_of(identity.user);
  call.ctx.client_source = request.client_source;
  call.ctx.cluster_name = m_options.cluster.cluster_name;
  call.ctx.accounting = m_options.cluster.accounting;

  // 26.05 fails to parse a query holding a literal comma before any handler runs.
  if (is_v4x(dialect) && target.query_has_literal_comma) return text_reply(500, "Unspecified error", true);
  if (!target.query_valid) return text_reply(400, "Unable to parse query.", true);

  // 22.05: a token slurmctld refuses surfaces as this misleading 500 on every endpoint.
  if (!identity.token_ok && !is_v4x(dialect)) {
    Diagnostics diag;
    diag.error(err::kUnspecified, "slurmctld config is unable to load", "slurm_load_ctl_conf");
    JsonWriter out;
    out.begin_object();
    write_tail(out, call.ctx, diag);
    out.end_object();
    return json_reply(500, out.take());
  }

  // 23.11: every ctxt handler first opens a slurmdbd connection with the caller's token
  // (wrap_openapi_ctxt_callback() in openapi.c at slurm-23-11-11-1); slurmdbd refuses a bad
  // token, so the call fails with 7000 before its handler runs, ping included.
  if (!identity.token_ok && slurmctld_calls_open_dbd(m_options.release) && m_options.cluster.accounting) {
    Diagnostics diag;
    diag.error(err::kDbConnection, "openapi_get_db_conn() failed to open slurmdb connection",
               "wrap_openapi_ctxt_callback");
    JsonWriter out;
    out.begin_object();
    write_errors_first(out, call.ctx, diag);
    out.end_object();
    return json_reply(http_status_for_error(m_options.release, err::kDbConnection), out.take());
  }

  m_store.tick();
  const std::string& method = request.method;
  const std::size_t n = seg.size();
  const std::string& res = n > 2 ? seg[2] : std::string();
  if (!dbd) {
    if (n == 3 && res == "ping" && method == "GET") return ping(call);
    if (n == 3 && res == "diag" && method == "GET") return diag(call);
    // GET conf exists only in 26.05's v0.0.45.
    if (n == 3 && res == "conf" && method == "GET" && dialect == Dialect::v0045) return conf(call);
    if (n == 4 && res == "job" && seg[3] == "submit") {
      return method == "POST" ? submit(call) : text_reply(405, "Unsupported HTTP method", true);
    }
    if (n == 4 && res == "job") {
      if (method == "GET") return get_job(call, seg[3]);
      if (method == "DELETE") return delete_job(call, seg[3]);
      if (method == "POST") return update_job(call, seg[3]);
      return text_reply(405, "Unsupported HTTP method", true);
    }
    if (n == 3 && res == "jobs" && method == "GET") return get_jobs(call);
    if (n == 3 && res == "jobs" && method == "DELETE" && is_v4x(dialect) && kill_jobs_endpoint(m_options.release)) {
      return delete_jobs(call);
    }
    // 23.11.0-23.11.4 do not bind jobs/state: the router answers as for any unknown path.
    if (n == 4 && res == "jobs" && seg[3] == "state" && is_v4x(dialect) && binds_jobs_state(m_options.release) &&
        method == "GET") {
      return jobs_state(call);
    }
    if (n == 3 && res == "partitions" && method == "GET") return partitions(call, nullptr);
    if (n == 4 && res == "partition" && method == "GET") return partitions(call, &seg[3]);
    if (n == 3 && res == "nodes" && method == "GET") return nodes(call);
  } else {
    if (n == 3 && res == "jobs" && method == "GET") return dbd_jobs(call);
    if (n == 4 && res == "job" && method == "GET") return dbd_job(call, seg[3]);
    if (n == 3 && res == "associations" && method == "GET") return dbd_associations(call);
  }
  return not_found_url();
}

HttpReply SlurmApi::ping(Call& call) {
  const bool ok = call.identity.token_ok;
  const std::string host = m_options.cluster.nodes.empty() ? "localhost" : m_options.cluster.nodes.front();
  const std::int64_t latency = 800 + static_cast<std::int64_t>((m_pings++ * 37) % 500);
  if (!is_v4x(call.ctx.dialect)) {
    // 22.05 loads the configuration first, then pings each controller it names.
    rpc(call, Rpc::build_info);
    rpc(call, Rpc::ping);
    // v0.0.38 puts meta and errors first.
    JsonWriter v38;
    v38.begin_object();
    write_tail(v38, call.ctx, Diagnostics{});
    v38.key("pings").begin_array().begin_object();
    v38.str_field("hostname", host).str_field("ping", "UP").int_field("status", 0).str_field("mode", "primary");
    v38.end_object().end_array();
    v38.end_object();
    return json_reply(200, v38.take());
  }
  if (ok) rpc(call, Rpc::ping);
  JsonWriter out;
  out.begin_object();
  out.key("pings").begin_array().begin_object();
  out.str_field("hostname", host);
  if (call.ctx.dialect == Dialect::v0040 || call.ctx.dialect == Dialect::v0041) {
    // CONTROLLER_PING before v0.0.42: no `responding`, no `primary`.
    out.str_field("pinged", ok ? "UP" : "DOWN");
    out.int_field("latency", latency);
    out.str_field("mode", "primary");
  } else if (call.ctx.dialect == Dialect::v0045) {
    out.bool_field("responding", ok);
    out.int_field("latency", latency);
    out.bool_field("primary", true);
    out.str_field("status", ok ? "No error" : err::strerror(err::kProtocolAuthentication));
  } else {
    out.str_field("pinged", ok ? "UP" : "DOWN");
    out.bool_field("responding", ok);
    out.int_field("latency", latency);
    out.str_field("mode", "primary");
    out.bool_field("primary", true);
  }
  out.end_object().end_array();
  write_tail(out, call.ctx, Diagnostics{});
  out.end_object();
  return json_reply(200, out.take());
}

HttpReply SlurmApi::conf(Call& call) {
  if (!call.identity.token_ok) {
    Diagnostics failed;
    failed.error(err::kProtocolAuthentication, "Unable to query slurm configuration", "op_handler_conf");
    JsonWriter out;
    out.begin_object();
    write_errors_first(out, call.ctx, failed);
    out.end_object();
    return json_reply(http_status_for_error(m_options.release, err::kProtocolAuthentication), out.take());
  }
  rpc(call, Rpc::build_info);
  const ClusterConfig& cluster = m_options.cluster;
  // Only what the simulator configures: the real answer carries every slurm.conf setting.
  std::vector<std::string> sched_params;
  if (cluster.max_array_tasks) sched_params.push_back("max_array_tasks=" + std::to_string(*cluster.max_array_tasks));
  if (cluster.whole_hetjob) sched_params.push_back("whole_hetjob");
  JsonWriter out;
  out.begin_object();
  out.key("slurm_conf").begin_object();
  out.str_field("ClusterName", cluster.cluster_name);
  out.int_field("MaxArraySize", cluster.max_array_size);
  out.string_array_field("SchedulerParameters", sched_params);
  out.end_object();
  write_tail(out, call.ctx, Diagnostics{});
  out.end_object();
  return json_reply(200, out.take());
}

HttpReply SlurmApi::diag(Call& call) {
  const Dialect dialect = call.ctx.dialect;
  if (!call.identity.token_ok) {
    // Only v0.0.4x gets here (22.05 answered before routing): no statistics, errors first.
    Diagnostics failed;
    failed.error(err::kProtocolAuthentication, "slurm_get_statistics() failed to get slurmctld statistics",
                 "op_handler_diag");
    JsonWriter out;
    out.begin_object();
    write_errors_first(out, call.ctx, failed);
    out.end_object();
    return json_reply(http_status_for_error(m_options.release, err::kProtocolAuthentication), out.take());
  }
  DiagSnapshot snapshot;
  snapshot.req_time = m_clock.now_s();
  snapshot.jobs = m_store.counters();
  snapshot.jobs_pending = m_store.count_in_state(BaseState::pending);
  snapshot.jobs_running = m_store.count_in_state(BaseState::running);
  snapshot.job_states_ts = snapshot.req_time;
  if (auto since = m_faults.accounting_lag_since(m_clock.now_ms())) {
    for (const auto& job : m_store.accounting()) snapshot.dbd_agent_queue_size += job->phase_since_ms >= *since ? 1 : 0;
  }
  snapshot.rpcs_by_type = m_rpcs.by_type();
  snapshot.rpcs_by_user = m_rpcs.by_user();
  JsonWriter out;
  out.begin_object();
  if (is_v4x(dialect)) {
    write_diag_statistics(out, snapshot, dialect);
    write_tail(out, call.ctx, Diagnostics{});
  } else {
    write_tail(out, call.ctx, Diagnostics{});
    write_diag_statistics(out, snapshot, dialect);
  }
  out.end_object();
  // slurmctld adds an RPC to its statistics once it has answered it.
  rpc(call, Rpc::stats_info);
  return json_reply(200, out.take());
}

}  // namespace tpslurm::sim
