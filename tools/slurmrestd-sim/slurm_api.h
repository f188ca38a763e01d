// SlurmApi: the /slurm/ and /slurmdb/ endpoints, per release and dialect.
// Defined by daemon: slurm_api.cc (routing, ping, diag), slurm_api_jobs.cc (slurmctld's reads
// and the submit), slurm_api_changes.cc (cancel, update), slurm_api_dbd.cc (slurmdbd).
//
// Serves ping, diag, job/submit, job/{id} (GET, DELETE, POST: job update), jobs (with update_time),
// jobs/state, partitions, partition/{name}, and slurmdbd's jobs and job/{id}. Every call
// that reaches the simulated slurmctld is counted as the RPC(s) slurmrestd would send, for
// diag's statistics. It is handed requests whose headers passed slurmrestd's own check, together with the outcome of
// slurmctld's token verification, because a bad token is answered per endpoint and release: 22.05 answers every call
// with HTTP 500 and a misleading "slurmctld config is unable to load"; 25.x/26.05 answer 511 with error 1007 in the
// endpoint's own shape, and `ping` 200 with `responding: false`. Error statuses follow http_status_for_error() (job
// updates on v0.0.4x excepted: 200 with the error, as measured); every
// answer with a status >= 400 carries "Connection: Close", as slurmrestd's do. Not thread-safe: the server thread is
// the only caller.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "envelope.h"
#include "faults.h"
#include "http_types.h"
#include "job_store.h"
#include "options.h"
#include "rpc_stats.h"
#include "sim_clock.h"
#include "stats.h"
#include "url.h"

namespace tpslurm::sim {

struct Identity {
  bool token_ok = true;
  std::string user = "root";
  std::uint32_t uid = 0;
  bool privileged = true;  // root or SlurmUser
};

class SlurmApi {
 public:
  SlurmApi(const SimOptions& options, SimClock& clock, JobStore& store, Stats& stats, FaultPlan& faults);

  HttpReply handle(const HttpRequest& request, const Target& target, const Identity& identity);

  // "GET /slurm/v0.0.45/job/{job_id}" for stats.
  static std::string route_key(const std::string& method, const Target& target);

 private:
  struct Call;
  HttpReply ping(Call& call);
  HttpReply diag(Call& call);
  // GET /slurm/v0.0.45/conf (26.05): ClusterName, MaxArraySize and SchedulerParameters only.
  HttpReply conf(Call& call);
  HttpReply submit(Call& call);
  HttpReply get_job(Call& call, const std::string& id_text);
  HttpReply delete_job(Call& call, const std::string& id_text);
  HttpReply delete_jobs(Call& call);  // slurm_api_kill_jobs.cc
  // POST job/{id}: a job update (only `hold` changes anything). v0.0.4x answers every
  // refusal slurm_update_job2() returns with HTTP 200 and the error in errors[] (measured on
  // 26.05.3 for 2017 and 2084); v0.0.38 with the error's HTTP status (500), as its handler
  // returns the code.
  HttpReply update_job(Call& call, const std::string& id_text);
  HttpReply update_job_v38(Call& call, const std::string& id_text);
  HttpReply update_job_v4x(Call& call, const std::string& id_text);
  // slurmctld's side of an update: the records `target` names (a v0.0.38 leader: each
  // component, as update_job_str() does), each given `hold`; the first error, or 0.
  int apply_hold(Call& call, JobRecord& target, bool hold, bool each_component);
  // v0.0.38 on an array's master id: the master's record and every split task still pending.
  int apply_hold_array(Call& call, JobRecord& master, bool hold);
  // DELETE job/{id} after its signal was read: v0.0.38 answers in errors[] with the HTTP
  // status of the error; v0.0.4x per job in status[] with 200.
  HttpReply delete_job_v38(Call& call, const std::string& id_text, int signal);
  // `notes`: the query parser's errors that did not stop the request (an unknown signal name).
  // 23.11 and 24.05 (slurm_kill_job()) answer without status[]: 2017 -> 404, 2021 a warning,
  // other refusals in errors[] with their HTTP status; 24.11's v0.0.40/41 parsers alias the
  // answer to the plain one (meta, errors, warnings), so per-job refusals are not shown.
  HttpReply delete_job_v4x(Call& call, const std::string& id_text, int signal, const Diagnostics& notes);
  HttpReply delete_job_kill_job(Call& call, const std::uint32_t* id, const std::string& id_text, int signal,
                                Diagnostics diag);
  HttpReply get_jobs(Call& call);
  HttpReply jobs_state(Call& call);
  HttpReply partitions(Call& call, const std::string* name);
  HttpReply nodes(Call& call);
  HttpReply dbd_jobs(Call& call);
  HttpReply dbd_job(Call& call, const std::string& id_text);
  HttpReply dbd_associations(Call& call);
  HttpReply dbd_unavailable(Call& call, const std::string& description, int status_override,
                            const char* source = "openapi_get_db_conn");
  // The answer of a slurmdbd that cannot be reached (an injected outage, a bad token), if so.
  std::optional<HttpReply> dbd_refusal(Call& call);
  // The slurmdbd job list in the dialect's layout (22.05: an empty one carries error 9003).
  // Records an accounting lag holds back are left out.
  HttpReply dbd_answer(Call& call, std::vector<const JobRecord*> jobs, Diagnostics& diag, const char* handler);
  // GET slurmdb/.../jobs' query: unknown keys (v0.0.38) and the times; a reply if refused.
  std::optional<HttpReply> dbd_query_times(Call& call, Diagnostics& diag, std::optional<std::int64_t>& start_time,
                                           std::optional<std::int64_t>& end_time,
                                           std::optional<std::int64_t>& submit_time);
  // dbv0.0.38's start_time/end_time/submit_time (parse_time() forms); a reply if refused.
  std::optional<HttpReply> dbd_times_v38(Call& call, std::optional<std::int64_t>& start_time,
                                         std::optional<std::int64_t>& end_time,
                                         std::optional<std::int64_t>& submit_time);

  const SimOptions& m_options;
  SimClock& m_clock;
  JobStore& m_store;
  Stats& m_stats;
  FaultPlan& m_faults;
  std::uint64_t m_pings = 0;
  RpcStats m_rpcs;  // what the simulated slurmctld was asked, for diag

  // Counts one slurmctld RPC made on behalf of the caller.
  void rpc(const Call& call, Rpc type);
  // SimOptions::private_jobs hides `job` from the caller (job_mgr.c _hide_job_user_rec).
  bool hidden(const Call& call, const JobRecord& job) const;
};

}  // namespace tpslurm::sim
