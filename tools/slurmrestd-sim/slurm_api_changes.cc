// SlurmApi: the calls that change a job in slurmctld: DELETE job/{id} (signal, cancel) and
// POST job/{id} (update: hold, release).
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

HttpReply SlurmApi::delete_job(Call& call, const std::string& id_text) {
  const Dialect dialect = call.ctx.dialect;
  int signal = kSigKill;
  Diagnostics notes;
  if (const std::string* s = call.target.param("signal")) {
    const QueryValue value = read_query_value(*s, dialect);
    const bool number = value.kind == QueryValue::Kind::number;
    const int parsed = static_cast<int>(
        std::clamp<long long>(number ? value.number : sig_name2num(*s, m_options.release), -1, kSigRtMax));
    if (is_v4x(dialect)) {
      // data_parser's SIGNAL parser notes an unknown name with error 0 (and a freed string,
      // hence "(null)") and leaves the signal 0, which _parse_job_delete makes SIGKILL: the
      // job is killed (measured on 26.05.3). A number is taken as it is; 0 is SIGKILL too.
      if (!number && parsed == 0) notes.error(0, "Unknown signal (null)", "#/signal/");
      if (parsed != 0) signal = parsed;
    } else if (value.kind != QueryValue::Kind::other) {
      // 22.05's _op_handler_job: a number as it is, a string through sig_name2num (0 when it
      // cannot read it), and 0 or a number from SIGRTMAX up is refused before any RPC. A
      // value of another type (null, boolean, fraction) leaves the default, SIGKILL.
      signal = parsed;
    }
    if (signal < 1 || signal >= kSigRtMax) {
      Diagnostics diag;
      diag.error(err::kRestInvalidQuery, "invalid signal: " + std::to_string(signal), "HTTP request: signal");
      return error_answer(call.ctx, diag, http_status_for_error(m_options.release, err::kRestInvalidQuery));
    }
  }

  return is_v4x(dialect) ? delete_job_v4x(call, id_text, signal, notes) : delete_job_v38(call, id_text, signal);
}

HttpReply SlurmApi::delete_job_v38(Call& call, const std::string& id_text, int signal) {
  Diagnostics diag;
  int rc = 0;
  std::uint32_t id = xlate_job_id_v38(id_text, m_store);
  rpc(call, Rpc::kill_job);
  JobRecord* job = id ? m_store.find(id) : nullptr;
  KillResult result = KillResult::not_found;
  if (auto task = parse_array_task_ref(id_text)) {
    // job_str_signal() gets the string: that task only, pending or split.
    result = m_store.kill_array_task(task->master, task->task, signal, call.identity.uid, call.identity.privileged);
  } else if (job && m_options.release == Release::r22_05_8 && job->array_job_id != 0 &&
             job->array_job_id != job->job_id) {
    // 22.05's job_str_signal() takes a bare id as a job or a whole array: a split task's own
    // id is neither, so it is refused with 2017 and the task keeps running (seen on 22.05.8).
    result = KillResult::not_found;
  } else if (job) {
    result = m_store.kill(*job, signal, call.identity.uid, call.identity.privileged);
  }
  switch (result) {
    case KillResult::signalled:
    case KillResult::already_done: break;  // 22.05 counts "already done" as success
    case KillResult::not_found: rc = err::kInvalidJobId; break;
    case KillResult::denied: rc = err::kAccessDenied; break;
    case KillResult::pending_het_component: rc = err::kNotWholeHetJob; break;
    case KillResult::not_running: rc = err::kTransitionStateNoUpdate; break;
  }
  if (rc) {
    diag.error(rc,
               "unable to kill JobId=" + id_text + " with signal " + std::to_string(signal) + ": " +
                   std::string(err::strerror(rc)),
               "slurm_kill_job");
  }
  JsonWriter out;
  out.begin_object();
  write_tail(out, call.ctx, diag);
  out.end_object();
  return json_reply(http_status_for_error(m_options.release, rc), out.take());
}

HttpReply SlurmApi::delete_job_v4x(Call& call, const std::string& id_text, int signal, const Diagnostics& notes) {
  JobRef ref = parse_job_ref_v4x(id_text, m_options.release);
  Diagnostics diag = notes;
  JsonWriter out;
  out.begin_object();
  if (!ref.valid) return refused_job_ref(call.ctx, diag, m_options.release);
  if (!kill_jobs_rpc(m_options.release))
    return delete_job_kill_job(call, ref.by_sluid ? nullptr : &ref.id, id_text, signal, diag);
  // 24.11's v0.0.40/41 parsers have no OPENAPI_KILL_JOB_RESP: it is an alias of OPENAPI_RESP.
  const bool with_status = dialect_number(call.ctx.dialect) >= 42;
  if (!call.identity.token_ok) {
    if (with_status) out.empty_array_field("status");
    diag.error(err::kProtocolAuthentication, "Signal request failed", "slurm_kill_jobs()");
    write_tail(out, call.ctx, diag);
    out.end_object();
    return json_reply(http_status_for_error(m_options.release, err::kProtocolAuthentication), out.take());
  }
  rpc(call, Rpc::kill_jobs);
  JobRecord* job = ref.by_sluid ? m_store.find_sluid(ref.sluid) : m_store.find(ref.id);
  KillResult result = KillResult::not_found;
  if (auto task = parse_array_task_ref(id_text)) {
    // slurm_kill_jobs() gets "M_t" as text: that task only. (23.11 and 24.05 send the numeric
    // id alone, delete_job_kill_job(): the whole array.)
    result = m_store.kill_array_task(task->master, task->task, signal, call.identity.uid, call.identity.privileged);
  } else if (job) {
    result = m_store.kill(*job, signal, call.identity.uid, call.identity.privileged);
  }
  int code = 0;
  switch (result) {
    case KillResult::signalled: break;
    case KillResult::already_done: code = err::kAlreadyDone; break;
    case KillResult::not_found: code = err::kInvalidJobId; break;
    case KillResult::denied: code = err::kAccessDenied; break;
    case KillResult::pending_het_component: code = err::kNotWholeHetJob; break;
    case KillResult::not_running: code = err::kTransitionStateNoUpdate; break;
  }
  if (!with_status) {
    write_tail(out, call.ctx, diag);
    out.end_object();
    return json_reply(200, out.take());
  }
  // Failures to signal come back per job in status[], with HTTP 200.
  out.key("status").begin_array();
  if (code) write_kill_status(out, code, id_text, job);
  out.end_array();
  write_tail(out, call.ctx, diag);
  out.end_object();
  return json_reply(200, out.take());
}

HttpReply SlurmApi::delete_job_kill_job(Call& call, const std::uint32_t* id, const std::string& id_text, int signal,
                                        Diagnostics diag) {
  // _handle_job_delete() at slurm-23-11-4-1 and slurm-24-05-8-1.
  int rc = 0;
  JobRecord* job = nullptr;
  if (!call.identity.token_ok) {
    rc = err::kProtocolAuthentication;
  } else {
    rpc(call, Rpc::kill_job);
    job = id ? m_store.find(*id) : nullptr;
    KillResult result =
        job ? m_store.kill(*job, signal, call.identity.uid, call.identity.privileged) : KillResult::not_found;
    switch (result) {
      case KillResult::signalled: break;
      case KillResult::already_done: rc = err::kAlreadyDone; break;
      case KillResult::not_found: rc = err::kInvalidJobId; break;
      case KillResult::denied: rc = err::kAccessDenied; break;
      case KillResult::pending_het_component: rc = err::kNotWholeHetJob; break;
      case KillResult::not_running: rc = err::kTransitionStateNoUpdate; break;
    }
  }
  const std::string name = signal_description(signal);
  if (rc == err::kAlreadyDone) {
    diag.warn("Job was already sent signal " + name, "_handle_job_delete");
    rc = 0;
  } else if (rc) {
    const std::uint32_t shown = id ? *id : 0;
    diag.error(rc, "unable to send signal " + name + " to JobId=" + std::to_string(shown), "slurm_kill_job2()");
  }
  (void)id_text;
  // Nothing is dumped: the wrapper adds errors, warnings and meta to an empty answer.
  JsonWriter out;
  out.begin_object();
  write_errors_first(out, call.ctx, diag);
  out.end_object();
  return json_reply(http_status_for_error(m_options.release, rc), out.take());
}

HttpReply SlurmApi::update_job(Call& call, const std::string& id_text) {
  ++m_stats.updates_received;
  return is_v4x(call.ctx.dialect) ? update_job_v4x(call, id_text) : update_job_v38(call, id_text);
}

int SlurmApi::apply_hold(Call& call, JobRecord& target, bool hold, bool each_component) {
  std::vector<JobRecord*> records{&target};
  if (each_component && target.is_het_leader()) records = m_store.het_group(target);
  int first = 0;
  for (JobRecord* record : records) {
    const int rc = m_store.set_hold(*record, hold, call.identity.uid, call.identity.privileged);
    if (rc && !first) first = rc;
  }
  return first;
}

int SlurmApi::apply_hold_array(Call& call, JobRecord& master, bool hold) {
  // "Update all tasks of this job array": the master's record and every split task still
  // pending (a task that runs or ended is not held or released: no error for it).
  int first = 0;
  for (JobRecord* record : m_store.array_records(master.job_id)) {
    if (record != &master && record->state != BaseState::pending) continue;
    const int rc = m_store.set_hold(*record, hold, call.identity.uid, call.identity.privileged);
    if (rc && !first) first = rc;
  }
  return first;
}

HttpReply SlurmApi::update_job_v38(Call& call, const std::string& id_text) {
  const std::string client = call.request.client_source;
  UpdateParse parsed = parse_update(call.request.body, call.ctx.dialect, client);
  if (parsed.unparsable_body) return text_reply(400, "Unable to parse query.", true);
  Diagnostics diag = parsed.diag;
  int rc = 0;
  if (!parsed.refused) {
    // The path id goes to slurmctld as text (update_job_str()): "12", "12+1", anything else
    // is an invalid job id there, a SLUID included.
    rpc(call, Rpc::update_job);
    std::uint32_t id = xlate_job_id_v38(id_text, m_store);
    JobRecord* job = id ? m_store.find(id) : nullptr;
    const auto task = parse_array_task_ref(id_text);
    // update_job_str() on "M_t" updates that task, splitting it off if it was pending.
    if (task) job = m_store.array_task(task->master, task->task);
    if (!job) {
      rc = err::kInvalidJobId;
    } else if (parsed.hold && !task && job->array_job_id && job->array_job_id == job->job_id) {
      rc = apply_hold_array(call, *job, *parsed.hold);
      // 22.05's handler reports any array update with a per-task answer as failed, with no
      // error number, and answers 200 (seen when releasing a held array on 22.05.8).
      if (!rc) {
        diag.errors.push_back(
            {0, "job array update from " + client + " failed", "_parse_job_list", ErrorItem::Form::no_number, {}});
      }
    } else if (parsed.hold) {
      // A leader named by its plain id: update_job_str() updates each component.
      rc = apply_hold(call, *job, *parsed.hold, id_text.find('+') == std::string::npos);
    }
    if (rc) diag.error(rc, "job update from " + client + " failed", "_parse_job_list");
  }
  JsonWriter out;
  out.begin_object();
  write_tail(out, call.ctx, diag);
  out.end_object();
  return json_reply(http_status_for_error(m_options.release, rc), out.take());
}

HttpReply SlurmApi::update_job_v4x(Call& call, const std::string& id_text) {
  JobRef ref = parse_job_ref_v4x(id_text, m_options.release);
  if (!ref.valid) {
    return refused_job_ref(call.ctx, Diagnostics{}, m_options.release);
  }
  UpdateParse parsed = parse_update(call.request.body, call.ctx.dialect, call.request.client_source);
  if (parsed.unparsable_body) return text_reply(400, "Unable to parse query.", true);
  Diagnostics diag = parsed.diag;
  int status = 200;
  if (!parsed.refused && id_text.find('_') != std::string::npos) {
    diag.error(err::kRestInvalidQuery,
               "Rejecting request. Submit job update against Array Job's JobID instead of array task id.",
               "_job_post_update");
    parsed.refused = true;
    status = http_status_for_error(m_options.release, err::kRestInvalidQuery);  // resp_error(): ctxt->rc
  }
  if (!parsed.refused) {
    if (id_text.find('.') != std::string::npos) {
      diag.warn(
          "Job step information ignored. Job update requests apply to whole job and can not be targeted to "
          "specific steps.",
          "_job_post_update");
    }
    int rc = 0;
    if (!call.identity.token_ok) {
      rc = err::kProtocolAuthentication;
      status = http_status_for_error(m_options.release, rc);
    } else {
      rpc(call, Rpc::update_job);
      // The handler copies only the numeric job id into the update: a SLUID in the path
      // reaches slurmctld as no job at all.
      JobRecord* job = ref.by_sluid ? nullptr : m_store.find(ref.id);
      if (!job) {
        rc = err::kInvalidJobId;
      } else if (parsed.hold) {
        rc = apply_hold(call, *job, *parsed.hold, false);
      }
    }
    if (rc) diag.error(rc, "Job update requested failed", "slurm_update_job2()");
  }
  // OPENAPI_JOB_POST_RESPONSE: `results` (null: slurmctld answered with a return code), then
  // the tail, whatever happened.
  JsonWriter out;
  out.begin_object();
  out.null_field("results");
  write_tail(out, call.ctx, diag);
  out.end_object();
  return json_reply(status, out.take());
}

}  // namespace tpslurm::sim
