// SlurmApi: DELETE /slurm/vX/jobs (slurm_kill_jobs(), 23.11.6 and later; see kill_jobs_request.h
// for the body). Each id string reaches slurmctld unchanged: "M" signals that job (an array's
// master: the whole array), "M_t" that array task alone (fixed in 23.11.7; the simulated 23.11 is
// 23.11.11). An id slurmctld cannot read fails the whole request; other failures come back per
// id in status[] with HTTP 200.
#include "kill_jobs_request.h"
#include "slurm_api.h"
#include "slurm_api_support.h"
#include "slurm_errors.h"
#include "slurm_signals.h"

namespace tpslurm::sim {

using namespace api_support;

namespace {
constexpr int kKill = 9;
}  // namespace

HttpReply SlurmApi::delete_jobs(Call& call) {
  KillJobsParse parsed = parse_kill_jobs(call.request.body);
  if (parsed.unparsable_body) return text_reply(400, "Unable to parse query.", true);
  Diagnostics diag;
  auto refuse = [&](int rc, const std::string& description) {
    diag.error(rc, description, "_op_handler_jobs");
    JsonWriter fail;
    fail.begin_object();
    fail.empty_array_field("status");
    write_tail(fail, call.ctx, diag);
    fail.end_object();
    return json_reply(http_status_for_error(m_options.release, rc), fail.take());
  };
  if (parsed.refused) return refuse(err::kRestInvalidQuery, "Rejecting request. Failure parsing parameters");
  if (!parsed.unsupported.empty()) {
    return refuse(err::kRestInvalidQuery, "the simulator does not model \"" + parsed.unsupported + "\" here");
  }
  if (!call.identity.token_ok) return refuse(err::kProtocolAuthentication, "Signal request failed");
  int signal = kKill;
  if (parsed.signal_number && *parsed.signal_number > 0) signal = static_cast<int>(*parsed.signal_number);
  if (parsed.signal_name) {
    const int number = sig_name2num(*parsed.signal_name, m_options.release);
    if (number > 0) signal = number;
  }
  for (const std::string& id : parsed.jobs) {
    if (!all_digits(id) && !parse_array_task_ref(id)) return refuse(err::kInvalidJobId, "Signal request failed");
  }
  rpc(call, Rpc::kill_jobs);
  JsonWriter out;
  out.begin_object();
  out.key("status").begin_array();
  for (const std::string& id : parsed.jobs) {
    KillResult result = KillResult::not_found;
    JobRecord* job = nullptr;
    if (auto task = parse_array_task_ref(id)) {
      result = m_store.kill_array_task(task->master, task->task, signal, call.identity.uid, call.identity.privileged);
      job = m_store.find(task->master);
    } else if ((job = m_store.find(static_cast<std::uint32_t>(to_u64(id))))) {
      result = m_store.kill(*job, signal, call.identity.uid, call.identity.privileged);
    }
    if (const int code = kill_jobs_code(result)) write_kill_status(out, code, id, job);
  }
  out.end_array();
  write_tail(out, call.ctx, diag);
  out.end_object();
  return json_reply(200, out.take());
}

}  // namespace tpslurm::sim
