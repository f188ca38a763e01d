// SlurmApi: slurmdbd's views, GET slurmdb/.../jobs and slurmdb/.../job/{id}.
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
#include "slurm_api.h"
#include "slurm_api_support.h"
#include "slurm_errors.h"
#include "slurm_signals.h"
#include "slurm_time.h"
#include "submit_request.h"
#include "update_request.h"

namespace tpslurm::sim {

using namespace api_support;

HttpReply SlurmApi::dbd_unavailable(Call& call, const std::string& description, int status_override,
                                    const char* source) {
  Diagnostics diag;
  diag.error(err::kDbConnection, description, source);
  return error_answer(call.ctx, diag,
                      status_override ? status_override : http_status_for_error(m_options.release, err::kDbConnection));
}

std::optional<HttpReply> SlurmApi::dbd_query_times(Call& call, Diagnostics& diag,
                                                   std::optional<std::int64_t>& start_time,
                                                   std::optional<std::int64_t>& end_time,
                                                   std::optional<std::int64_t>& submit_time) {
  const Dialect dialect = call.ctx.dialect;
  static const std::set<std::string> kKnownV38 = {"account",    "association", "cluster",     "constraints",
                                                  "format",     "groups",      "job_name",    "partition",
                                                  "qos",        "reason",      "reservation", "state",
                                                  "wckey",      "cpus_min",    "cpus_max",    "exit_code",
                                                  "nodes_min",  "nodes_max",   "skip_steps",  "disable_wait_for_result",
                                                  "start_time", "end_time",    "submit_time", "node",
                                                  "step",       "users"};
  for (const auto& [key, value] : call.target.query) {
    if (!is_v4x(dialect) && !kKnownV38.count(key)) {
      diag.error(err::kRestFailParsing, "Unknown query key \"" + key + "\"", "_parse_job_cond");
      JsonWriter out;
      out.begin_object();
      write_tail(out, call.ctx, diag);
      out.end_object();
      return json_reply(http_status_for_error(m_options.release, err::kRestFailParsing), out.take());
    }
  }
  if (is_v4x(dialect)) {
    auto time_param = [&](const char* key, std::optional<std::int64_t>& out) -> bool {
      const std::string* v = call.target.param(key);
      if (!v) return true;
      out = parse_time_param(v, dialect);
      if (!out) time_refused(diag, dialect, key, *v);
      return out.has_value();
    };
    if (!time_param("start_time", start_time) || !time_param("end_time", end_time) ||
        !time_param("submit_time", submit_time)) {
      diag.error(err::kRestInvalidQuery, "Rejecting request. Failure parsing parameters", "op_handler_jobs");
      JsonWriter out;
      out.begin_object();
      write_errors_first(out, call.ctx, diag);
      out.end_object();
      return json_reply(time_refused_status(m_options.release), out.take());
    }
    return std::nullopt;
  }
  return dbd_times_v38(call, start_time, end_time, submit_time);
}

std::optional<HttpReply> SlurmApi::dbd_refusal(Call& call) {
  const std::int64_t now_ms = m_clock.now_ms();
  // Before 24.11 the wrapper words it its own way (openapi.c at slurm-24-05-8-1).
  const bool old_wrapper = !kill_jobs_rpc(m_options.release) && m_options.release != Release::r22_05_8;
  if (const FaultRule* outage = m_faults.accounting_outage(now_ms, call.request.method, call.target.path)) {
    ++m_stats.faults_by_kind["accounting_outage"];
    if (old_wrapper) return dbd_unavailable(call, kOldDbConnFailure, outage->status, "wrap_openapi_ctxt_callback");
    return dbd_unavailable(call, "Failed to open slurmdbd connection", outage->status);
  }
  if (!call.identity.token_ok) {
    if (old_wrapper) return dbd_unavailable(call, kOldDbConnFailure, 0, "wrap_openapi_ctxt_callback");
    return dbd_unavailable(call, "Failed to open slurmdbd connection, authentication error", 0);
  }
  return std::nullopt;
}

HttpReply SlurmApi::dbd_jobs(Call& call) {
  const Dialect dialect = call.ctx.dialect;
  if (auto refused = dbd_refusal(call)) return std::move(*refused);
  Diagnostics diag;
  DbdFilter filter;
  if (auto refused = dbd_query_times(call, diag, filter.start_time, filter.end_time, filter.submit_time)) {
    return std::move(*refused);
  }
  const std::string* names = call.target.param("job_name");
  const std::string* steps = call.target.param("step");
  filter.steps = steps != nullptr;
  filter.states = csv_set(call.target.param("state"));
  filter.users = csv_set(call.target.param("users"));
  filter.partitions = csv_set(call.target.param("partition"));
  filter.set_window(m_clock.now_s(), call.target.param("state") != nullptr);

  std::vector<JobStore::JobPtr> candidates = dbd_candidates(m_store, names, steps, dialect);
  std::vector<const JobRecord*> matched;
  for (const auto& job : candidates) {
    if (filter.matches(*job)) matched.push_back(job.get());
  }
  return dbd_answer(call, matched, diag, "op_handler_jobs");
}

HttpReply SlurmApi::dbd_answer(Call& call, std::vector<const JobRecord*> jobs, Diagnostics& diag, const char* handler) {
  const Dialect dialect = call.ctx.dialect;
  const std::int64_t now_s = m_clock.now_s();
  // Records that changed since an accounting lag began are still in slurmctld's DBD agent
  // queue: slurmdbd has not received them.
  if (auto since = m_faults.accounting_lag_since(m_clock.now_ms())) {
    std::erase_if(jobs, [&](const JobRecord* job) { return job->phase_since_ms >= *since; });
  }
  std::erase_if(jobs, [&](const JobRecord* job) { return hidden(call, *job); });
  JsonWriter out;
  out.begin_object();
  if (!is_v4x(dialect)) {
    // db_query_list()@22.05 reports an empty result as error 9003, yet the handler still
    // succeeds: HTTP 200, meta and errors first, then the (empty) list.
    if (jobs.empty()) diag.error(err::kRestEmptyResult, "Nothing found", "slurmdb_jobs_get");
    write_tail(out, call.ctx, diag);
  }
  out.key("jobs").begin_array();
  for (const JobRecord* job : jobs) write_dbd_job(out, *job, dialect, m_options.cluster, now_s);
  out.end_array();
  if (is_v4x(dialect)) {
    if (jobs.empty()) diag.warn("slurmdb_jobs_get(0x1) found nothing", handler);
    write_tail(out, call.ctx, diag);
  }
  out.end_object();
  return json_reply(200, out.take());
}

std::optional<HttpReply> SlurmApi::dbd_times_v38(Call& call, std::optional<std::int64_t>& start_time,
                                                 std::optional<std::int64_t>& end_time,
                                                 std::optional<std::int64_t>& submit_time) {
  // _foreach_query_search()@22.05 walks the query in order and stops at the first bad
  // time; the handler then returns SLURM_ERROR, which 22.05 answers with HTTP 500.
  auto refuse = [&](const std::string& description, const std::string& key) {
    Diagnostics diag;
    diag.error(err::kRestInvalidQuery, description, key);
    JsonWriter out;
    out.begin_object();
    write_tail(out, call.ctx, diag);
    out.end_object();
    return json_reply(http_status_for_error(m_options.release, err::kUnspecified), out.take());
  };
  for (const auto& [key, value] : call.target.query) {
    const bool start = key == "start_time";
    const bool submit = key == "submit_time";
    if (!start && !submit && key != "end_time") continue;
    if ((start && submit_time) || (submit && start_time)) {
      return refuse("start_time and submit_time are mutually exclusive", key);
    }
    std::optional<std::int64_t> parsed = parse_slurm_time(value);
    if (!parsed) return refuse("Unable to parse time format", key);
    (start ? start_time : submit ? submit_time : end_time) = parsed;
  }
  return std::nullopt;
}

HttpReply SlurmApi::dbd_job(Call& call, const std::string& id_text) {
  const Dialect dialect = call.ctx.dialect;
  if (auto refused = dbd_refusal(call)) return std::move(*refused);
  std::vector<JobStore::JobPtr> found;
  if (!id_text.empty() && id_text[0] == 's' && dialect == Dialect::v0045) {
    if (auto sluid = parse_sluid(id_text)) {
      for (const auto& job : m_store.accounting()) {
        if (job->sluid == *sluid || job->original_sluid == *sluid) found.push_back(job);
      }
    }
  } else if (all_digits(id_text)) {
    found = m_store.accounting_by_id(static_cast<std::uint32_t>(to_u64(id_text)));
  } else {
    return refused_job_ref(call.ctx, Diagnostics{}, m_options.release);
  }
  // A het component brings its whole het job, as slurmdbd's job/{id} does.
  std::vector<JobStore::JobPtr> expanded;
  for (const auto& job : found) {
    if (!job->is_het()) {
      expanded.push_back(job);
      continue;
    }
    for (std::uint32_t k = 0; k < job->het_size; ++k) {
      for (const auto& member : m_store.accounting_by_id(job->het_job_id + k)) {
        if (member->het_job_id == job->het_job_id && member->submit_time == job->submit_time) {
          expanded.push_back(member);
        }
      }
    }
  }
  std::sort(expanded.begin(), expanded.end());
  expanded.erase(std::unique(expanded.begin(), expanded.end()), expanded.end());
  std::sort(expanded.begin(), expanded.end(),
            [](const JobStore::JobPtr& a, const JobStore::JobPtr& b) { return a->created_seq < b->created_seq; });
  Diagnostics diag;
  std::vector<const JobRecord*> records;
  for (const auto& job : expanded) records.push_back(job.get());
  return dbd_answer(call, records, diag, "op_handler_job");
}

// The associations of the user the `user` filter names (ClusterConfig::associations). Nothing
// found: 22.05 answers error 9003 with HTTP 500 and no list (seen on the real 22.05.8); the
// data_parser versions a warning and an empty list (db_query_list, api.c at 26.05).
HttpReply SlurmApi::dbd_associations(Call& call) {
  const Dialect dialect = call.ctx.dialect;
  if (auto refused = dbd_refusal(call)) return std::move(*refused);
  const std::string* user = call.target.param("user");
  static const std::vector<std::string> none;
  const auto& all = m_options.cluster.associations;
  const auto found = user != nullptr ? all.find(*user) : all.end();
  const std::vector<std::string>& accounts = found == all.end() ? none : found->second;
  Diagnostics diag;
  JsonWriter out;
  out.begin_object();
  if (!is_v4x(dialect) && accounts.empty()) {
    diag.error(err::kRestEmptyResult, "Nothing found", "slurmdb_associations_get");
    write_tail(out, call.ctx, diag);
    out.end_object();
    return json_reply(500, out.take());
  }
  if (!is_v4x(dialect)) write_tail(out, call.ctx, diag);
  out.key("associations").begin_array();
  for (const auto& account : accounts) {
    out.begin_object();
    out.str_field("account", account);
    out.str_field("cluster", m_options.cluster.cluster_name);
    if (is_v4x(dialect)) {
      out.str_field("partition", "");
    } else {
      out.null_field("partition");
    }
    out.str_field("user", *user);
    out.end_object();
  }
  out.end_array();
  if (is_v4x(dialect)) {
    if (accounts.empty()) diag.warn("slurmdb_associations_get() found nothing", "op_handler_associations");
    write_tail(out, call.ctx, diag);
  }
  out.end_object();
  return json_reply(200, out.take());
}

}  // namespace tpslurm::sim
