// SlurmApi: slurmctld's job reads and the submit: job/submit, job/{id} (GET), jobs,
// jobs/state, partitions, partition/{name}.
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

HttpReply SlurmApi::submit(Call& call) {
  ++m_stats.submits_received;
  const Dialect dialect = call.ctx.dialect;
  SubmitDefaults defaults;
  defaults.user_name = call.identity.user;
  defaults.user_id = call.identity.uid;
  defaults.group_name = group_of(call.identity.user);
  defaults.group_id = uid_of(defaults.group_name == "nogroup" ? "nobody" : defaults.group_name);
  defaults.default_cwd = m_options.default_cwd;
  SubmitParse parsed = parse_submit(call.request.body, dialect, defaults);
  if (parsed.unparsable_body) return text_reply(400, "Unable to parse query.", true);

  auto refused = [&](Diagnostics& diag, int rc) {
    return error_answer(call.ctx, diag, http_status_for_error(m_options.release, rc));
  };

  if (is_v4x(dialect) && submit_needs_top_level_script(m_options.release) && !parsed.top_level_script &&
      parsed.rc != err::kRestFailParsing) {
    // 23.11.0-23.11.4's _job_post() looks only at the top-level script, before job/jobs.
    Diagnostics diag;
    for (const auto& w : parsed.diag.warnings) diag.warnings.push_back(w);
    diag.error(err::kRestInvalidQuery, "Populated \"script\" field is required for job submission", "_job_post");
    return refused(diag, err::kRestInvalidQuery);
  }
  if (parsed.rc) return refused(parsed.diag, parsed.rc);
  if (!call.identity.token_ok) {
    Diagnostics diag;
    diag.error(err::kProtocolAuthentication, "Batch job submission failed", "slurm_submit_batch_job()");
    return refused(diag, err::kProtocolAuthentication);
  }
  rpc(call, parsed.components.size() > 1 ? Rpc::submit_batch_het_job : Rpc::submit_batch_job);
  SubmitCheck check = check_submit(parsed.components, m_options.cluster, dialect);
  if (check.rc) {
    Diagnostics diag = parsed.diag;
    if (is_v4x(dialect)) {
      diag.error(check.rc, "Batch job submission failed", "slurm_submit_batch_job()");
    } else {
      diag.errors.push_back({check.rc, "", "", ErrorItem::Form::code_first, {}});
    }
    return refused(diag, check.rc);
  }
  const std::size_t components = parsed.components.size();
  const std::uint32_t job_id = m_store.submit(std::move(parsed.components));
  m_stats.jobs_created += components;

  Diagnostics diag = parsed.diag;
  JsonWriter out;
  out.begin_object();
  if (is_v4x(dialect)) {
    if (check.nonfatal) diag.warn(std::string(err::strerror(check.nonfatal)), "slurm_submit_batch_job()");
    if (dialect == Dialect::v0040 || dialect == Dialect::v0041) {
      // The deprecated `result` (JOB_SUBMIT_RESPONSE_MSG) precedes the flat fields.
      out.key("result").begin_object();
      out.int_field("job_id", job_id);
      out.str_field("step_id", "batch");
      out.int_field("error_code", check.nonfatal);
      out.str_field("error", err::strerror(check.nonfatal));
      out.str_field("job_submit_user_msg", "");
      out.end_object();
    }
    out.int_field("job_id", job_id);
    out.str_field("step_id", "batch");
    out.str_field("job_submit_user_msg", "");
    write_tail(out, call.ctx, diag);
  } else {
    // 22.05 reports a non-fatal code as an error next to the job id.
    if (check.nonfatal) diag.errors.push_back({check.nonfatal, "", "", ErrorItem::Form::code_first, {}});
    write_tail(out, call.ctx, diag);
    out.int_field("job_id", job_id);
    out.str_field("step_id", "BATCH");
    out.str_field("job_submit_user_msg", "");
  }
  out.end_object();
  return json_reply(200, out.take());
}

HttpReply SlurmApi::get_job(Call& call, const std::string& id_text) {
  const Dialect dialect = call.ctx.dialect;
  if (!is_v4x(dialect)) {
    std::uint32_t id = xlate_job_id_v38(id_text, m_store);
    Diagnostics diag;
    JsonWriter out;
    out.begin_object();
    if (!id) {
      diag.error(err::kRestInvalidJobsDesc, "Unable to find JobId=" + id_text, "_handle_job_get");
      write_tail(out, call.ctx, diag);
      out.end_object();
      return json_reply(http_status_for_error(m_options.release, err::kRestInvalidJobsDesc), out.take());
    }
    rpc(call, Rpc::job_info_single);
    JobRecord* job = m_store.find(id);
    if (!job || hidden(call, *job)) {
      diag.error(err::kInvalidJobId, "Unable to find JobId=" + id_text, "slurm_load_job");
      write_tail(out, call.ctx, diag);
      out.empty_array_field("jobs");
      out.end_object();
      return json_reply(http_status_for_error(m_options.release, err::kInvalidJobId), out.take());
    }
    write_tail(out, call.ctx, diag);
    out.key("jobs").begin_array();
    for (JobRecord* r : m_store.records_for_get(*job)) write_job_v38(out, *r, m_options.cluster);
    out.end_array();
    out.end_object();
    return json_reply(200, out.take());
  }

  JobRef ref = parse_job_ref_v4x(id_text, m_options.release);
  Diagnostics diag;
  JsonWriter out;
  out.begin_object();
  if (!ref.valid) return refused_job_ref(call.ctx, diag, m_options.release);
  for (auto& w : ref.warnings) diag.warn(w, "_handle_job_get");
  auto empty_answer = [&](int rc) {
    out.empty_array_field("jobs");
    write_list_times(out, 0, 0);
    diag.error(rc, "Unable to query JobId=" + id_text, "_handle_job_get");
    write_tail(out, call.ctx, diag);
    out.end_object();
    return json_reply(http_status_for_error(m_options.release, rc), out.take());
  };
  if (!call.identity.token_ok) return empty_answer(err::kProtocolAuthentication);
  rpc(call, Rpc::job_info_single);
  JobRecord* job = ref.by_sluid ? m_store.find_sluid(ref.sluid) : m_store.find(ref.id);
  if (!job || hidden(call, *job)) return empty_answer(err::kInvalidJobId);
  out.key("jobs").begin_array();
  for (JobRecord* r : m_store.records_for_get(*job))
    write_job_v4x(out, *r, dialect, m_options.release, m_options.cluster);
  out.end_array();
  write_list_times(out, m_store.last_backfill(), m_clock.now_s());
  write_tail(out, call.ctx, diag);
  out.end_object();
  return json_reply(200, out.take());
}

HttpReply SlurmApi::get_jobs(Call& call) {
  const Dialect dialect = call.ctx.dialect;
  std::int64_t update_time = 0;
  if (const std::string* t = call.target.param("update_time")) {
    auto parsed = parse_time_param(t, dialect);
    if (!parsed) {
      Diagnostics diag;
      time_refused(diag, dialect, "update_time", *t);
      diag.error(err::kRestInvalidQuery, "Rejecting request. Failure parsing parameters", "op_handler_jobs");
      return error_answer(call.ctx, diag, time_refused_status(m_options.release));
    }
    update_time = *parsed;
  }
  if (call.identity.token_ok) rpc(call, Rpc::job_info);
  // slurmctld: nothing changed when (update_time - 1) >= last_job_update.
  const bool unchanged = update_time > 0 && update_time - 1 >= m_store.last_job_update();
  if (!is_v4x(dialect)) {
    if (unchanged) {
      HttpReply reply;
      reply.status = 304;
      reply.content_type.clear();
      return reply;
    }
    JsonWriter out;
    out.begin_object();
    write_tail(out, call.ctx, Diagnostics{});
    out.key("jobs").begin_array();
    for (const auto& [id, job] : m_store.controller_jobs()) {
      if (!hidden(call, *job)) write_job_v38(out, *job, m_options.cluster);
    }
    out.end_array();
    out.end_object();
    return json_reply(200, out.take());
  }
  Diagnostics diag;
  JsonWriter out;
  out.begin_object();
  if (!call.identity.token_ok || unchanged) {
    out.empty_array_field("jobs");
    write_list_times(out, 0, 0);
    int status = 200;
    if (!call.identity.token_ok) {
      diag.error(err::kProtocolAuthentication, "Unable to query jobs", "slurm_load_jobs()");
      status = http_status_for_error(m_options.release, err::kProtocolAuthentication);
    } else {
      diag.warn("No job changes since update_time[" + std::to_string(update_time) + "]=" + iso_time(update_time),
                "op_handler_jobs");
    }
    write_tail(out, call.ctx, diag);
    out.end_object();
    return json_reply(status, out.take());
  }
  out.key("jobs").begin_array();
  for (const auto& [id, job] : m_store.controller_jobs()) {
    if (!hidden(call, *job)) write_job_v4x(out, *job, dialect, m_options.release, m_options.cluster);
  }
  out.end_array();
  write_list_times(out, m_store.last_backfill(), m_clock.now_s());
  write_tail(out, call.ctx, diag);
  out.end_object();
  return json_reply(200, out.take());
}

HttpReply SlurmApi::jobs_state(Call& call) {
  Diagnostics diag;
  JsonWriter out;
  out.begin_object();
  if (!call.identity.token_ok) {
    out.empty_array_field("jobs");
    diag.error(err::kProtocolAuthentication, "Unable to query jobs", "slurm_load_jobs_state()");
    write_tail(out, call.ctx, diag);
    out.end_object();
    return json_reply(http_status_for_error(m_options.release, err::kProtocolAuthentication), out.take());
  }
  std::vector<const JobRecord*> entries;
  auto add_all = [&]() {
    for (const auto& [id, job] : m_store.controller_jobs()) entries.push_back(job.get());
  };
  const std::vector<std::string> ids = call.target.params("job_id");
  if (ids.empty()) add_all();
  for (const std::string& value : ids) {
    if (!value.empty() && (value[0] == 's' || value[0] == 'S')) {
      // A SLUID does not filter jobs/state: each one brings back every job.
      add_all();
      continue;
    }
    if (!all_digits(value)) {
      diag.error(err::kRestInvalidQuery, "Rejecting request. Failure parsing parameters", "op_handler_jobs_state");
      JsonWriter fail;
      fail.begin_object();
      write_errors_first(fail, call.ctx, diag);
      fail.end_object();
      return json_reply(http_status_for_error(m_options.release, err::kRestInvalidQuery), fail.take());
    }
    JobRecord* job = m_store.find(static_cast<std::uint32_t>(to_u64(value)));
    if (!job) continue;
    for (JobRecord* r : m_store.records_for_get(*job)) entries.push_back(r);
  }
  rpc(call, Rpc::job_state);
  out.key("jobs").begin_array();
  auto entry = [&](const JobRecord& job, const std::string& id) {
    out.begin_object();
    out.str_field("job_id", id);
    out.string_array_field("state", state_array(job.state, job.flags, call.ctx.dialect));
    out.end_object();
  };
  for (const JobRecord* job : entries) {
    std::string id = std::to_string(job->job_id);
    if (job->is_array_meta()) {
      // One entry per pending task, from the whole set (not the 64-character string).
      for (std::uint32_t task : job->array_pending) entry(*job, id + "_" + std::to_string(task));
      // No task left (all cancelled while pending): no bitmap, task id NO_VAL.
      if (job->array_pending.empty()) entry(*job, id + "_*");
      continue;
    }
    // A task is named by its own job id and its task id (job_state.c at slurm-26-05-3-1).
    if (job->array_task_id) id += "_" + std::to_string(*job->array_task_id);
    if (job->is_het()) id += "+" + std::to_string(job->het_job_offset);
    entry(*job, id);
  }
  out.end_array();
  write_tail(out, call.ctx, diag);
  out.end_object();
  return json_reply(200, out.take());
}

HttpReply SlurmApi::partitions(Call& call, const std::string* name) {
  const Dialect dialect = call.ctx.dialect;
  const auto& cluster = m_options.cluster;
  Diagnostics diag;
  int rc = 0;
  if (call.identity.token_ok) rpc(call, Rpc::partition_info);
  if (!call.identity.token_ok) {
    rc = err::kProtocolAuthentication;
    diag.error(rc, "Unable to query partitions", "slurm_load_partitions()");
  } else if (name && !cluster.has_partition(*name)) {
    rc = err::kInvalidPartitionName;
    diag.error(rc, "Unable to find partition " + *name, "_op_handler_partitions");
  }
  JsonWriter out;
  out.begin_object();
  auto list = [&]() {
    out.key("partitions").begin_array();
    if (!rc) {
      for (const auto& p : cluster.partitions) {
        if (!name || p == *name) write_partition(out, p, dialect, cluster);
      }
    }
    out.end_array();
  };
  write_listing(out, call.ctx, diag, rc ? 0 : m_clock.now_s(), list);
  out.end_object();
  return json_reply(http_status_for_error(m_options.release, rc), out.take());
}

// The nodes' names, features and GRES only: what a client checks a constraint and a GRES
// request against. v0.0.38 prints the features as one comma-separated string, v0.0.4x as a list.
HttpReply SlurmApi::nodes(Call& call) {
  const Dialect dialect = call.ctx.dialect;
  const auto& cluster = m_options.cluster;
  Diagnostics diag;
  int rc = 0;
  if (!call.identity.token_ok) {
    rc = err::kProtocolAuthentication;
    diag.error(rc, "Unable to query nodes", "slurm_load_node()");
  }
  std::string joined;
  for (const auto& feature : cluster.features) joined += (joined.empty() ? "" : ",") + feature;
  JsonWriter out;
  out.begin_object();
  auto list = [&]() {
    out.key("nodes").begin_array();
    for (const auto& node : rc ? std::vector<std::string>{} : cluster.nodes) {
      out.begin_object().str_field("name", node);
      if (is_v4x(dialect)) {
        out.key("features").begin_array();
        for (const auto& feature : cluster.features) out.string(feature);
        out.end_array();
      } else {
        out.str_field("features", joined);
      }
      out.str_field("gres", cluster.gres).end_object();
    }
    out.end_array();
  };
  write_listing(out, call.ctx, diag, rc ? 0 : m_clock.now_s(), list);
  out.end_object();
  return json_reply(http_status_for_error(m_options.release, rc), out.take());
}

}  // namespace tpslurm::sim
