// RestClient's job-array calls (slurm_client.h): cancel_array_task, which picks the path the
// server's release allows (server_info.h, ArrayTaskCancel), and array_limits, which reads
// MaxArraySize and max_array_tasks where the server serves its configuration.
#include <string>
#include <vector>

#include "slurm/rest_client.h"
#include "slurm/signal_names.h"

namespace tpslurm::slurm {

std::optional<SlurmRelease> RestClient::known_release(const Dialect& codec, CallResult& failure) {
  if (auto release = m_caller.release()) return release;
  // No answer has named the release yet (a configured version, nothing asked so far).
  RestCaller::Sent sent = m_caller.send(HttpMethod::get, codec.ping_path());
  if (m_caller.refused(failure, sent, codec.version())) return std::nullopt;
  m_caller.read(failure, sent, codec, &Dialect::decode_ping);
  if (auto release = m_caller.release()) return release;
  if (failure.ok()) {
    failure.outcome = Outcome::rejected;
    failure.message = sent.label + ": the answer does not name the server's release, which decides how an array task is "
                                   "cancelled; nothing was cancelled";
  }
  return std::nullopt;
}

CancelResult RestClient::cancel_array_task(const JobRef& master, std::uint32_t task, std::string_view signal,
                                           const std::optional<JobRef>& own) {
  CancelResult result;
  const std::string task_id = std::to_string(master.job_id) + "_" + std::to_string(task);
  if (!signal.empty() && !is_sendable_signal(signal)) {
    result.outcome = Outcome::rejected;
    result.message = "cancel array task " + task_id + ": not sent: " + unsendable_signal_message(signal);
    return result;
  }
  if (master.job_id == 0) {
    result.outcome = Outcome::rejected;
    result.message = "cancel array task: no numeric master id given; a task is addressed as {master}_{task}";
    return result;
  }
  auto codec = dialect(result);
  if (!codec) return result;
  result.dialect = std::string(codec->version());
  const auto release = known_release(*codec, result);
  if (!release) return result;
  const ArrayTaskCancel how = array_task_cancel(*release);
  if (how == ArrayTaskCancel::none) {
    // The last task keeps the master's id: a bare master id there still signals every task.
    if (own && own->job_id != 0 && own->job_id != master.job_id) return cancel(*own, signal);
    result.outcome = Outcome::rejected;
    result.release = release->to_string();
    result.message = "cancel array task " + task_id + ": not sent: Slurm " + release->to_string() +
                     " cannot signal one task of an array alone (DELETE job/{M}_{t} kills the whole array, DELETE jobs "
                     "does not reach a pending task before 23.11.7); a task that has started can be cancelled by "
                     "its own job id";
    return result;
  }
  const bool by_list = how == ArrayTaskCancel::kill_jobs;
  const std::string target = by_list ? codec->kill_jobs_path() : codec->cancel_path(task_id, signal);
  const JobRef checked{master.job_id, master.sluid, master.tag, master.unix_user};
  if (auto check = check_identity(*codec, checked, "DELETE " + target + " (" + task_id + ")", "cancelled", false);
      check.refused) {
    static_cast<CallResult&>(result) = *check.refused;
    return result;
  }
  const std::vector<std::string> ids{task_id};
  RestCaller::Sent sent = m_caller.send(HttpMethod::del, target, by_list ? codec->kill_jobs_body(ids, signal) : "",
                                        Reuse::allowed, std::nullopt, {}, master.unix_user);
  sent.one_job_kind = "cancel";
  if (m_caller.refused(result, sent, codec->version())) return result;
  auto reply = m_caller.read(result, sent, *codec, &Dialect::decode_cancel);
  if (!reply || result.outcome == Outcome::auth) return result;
  // DELETE jobs refuses a whole request (an id it cannot read) in errors[] with an empty
  // status list: the read's classification stands.
  if (by_list && reply->refusals.empty() && !reply->errors.empty()) return result;
  const Classification classification = cancel_classification(*reply, signal, result);
  m_caller.fill(result, sent, classification, &*reply, codec->version());
  return result;
}

ArrayLimitsResult RestClient::array_limits() {
  ArrayLimitsResult result;
  auto codec = dialect(result);
  if (!codec) return result;
  result.dialect = std::string(codec->version());
  const std::string not_served = "slurmctld's configuration is not served: only Slurm 26.05's v0.0.45 has GET conf";
  if (codec->version() != "v0.0.45") {
    result.outcome = Outcome::ok;
    result.message = not_served + " (this client speaks " + result.dialect + ")";
    return result;
  }
  RestCaller::Sent sent = m_caller.send(HttpMethod::get, codec->conf_path());
  if (m_caller.refused(result, sent, codec->version())) return result;
  auto reply = m_caller.read(result, sent, *codec, &Dialect::decode_conf);
  if (result.outcome == Outcome::rejected && result.http_status == 404) {
    result.outcome = Outcome::ok;
    result.message = not_served + " (" + sent.label + " answered 404)";
    return result;
  }
  if (result.ok() && !reply) {
    result.outcome = Outcome::uncertain;
    result.message = sent.label + ": HTTP " + std::to_string(result.http_status) + " without \"slurm_conf\"";
  }
  if (!result.ok()) return result;
  result.served = true;
  constexpr std::int64_t kMost = 0xffffffffLL;
  if (reply->max_array_size && *reply->max_array_size >= 0 && *reply->max_array_size <= kMost) {
    result.max_array_size = static_cast<std::uint32_t>(*reply->max_array_size);
  }
  if (reply->max_array_tasks && *reply->max_array_tasks >= 0 && *reply->max_array_tasks <= kMost) {
    result.max_array_tasks = static_cast<std::uint32_t>(*reply->max_array_tasks);
  }
  return result;
}

}  // namespace tpslurm::slurm
