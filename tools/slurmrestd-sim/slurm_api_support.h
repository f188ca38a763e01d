// What the SlurmApi files share (slurm_api.cc, slurm_api_jobs.cc, slurm_api_changes.cc,
// slurm_api_dbd.cc): a call's context, the reply helpers, job-id and time parsing as
// slurmrestd does them, and slurmdbd's candidate jobs and filter. Internal to the simulator.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "envelope.h"
#include "http_types.h"
#include "job_store.h"
#include "json_writer.h"
#include "slurm_api.h"

namespace tpslurm::sim {

struct SlurmApi::Call {
  const HttpRequest& request;
  const Target& target;
  const Identity& identity;
  RequestContext ctx;
  bool dbd = false;
};

namespace api_support {

// glibc's SIGRTMAX on Linux: 22.05 refuses signal numbers from it up.
inline constexpr int kSigRtMax = 64;

inline constexpr std::uint32_t kMaxJobId = 0x03ffffff;

inline constexpr char kOldDbConnFailure[] = "openapi_get_db_conn() failed to open slurmdb connection";

HttpReply json_reply(int status, std::string body);

HttpReply not_found_url();

// An error answer in the dialect's shape: errors[] first from v0.0.40, the tail (meta, errors,
// warnings) on v0.0.38.
HttpReply error_answer(const RequestContext& ctx, const Diagnostics& diag, int status);

// A v0.0.4x job list's last_backfill and last_update.
void write_list_times(JsonWriter& out, std::int64_t last_backfill, std::int64_t last_update);

// A job id in the path that the handler cannot read: 9001 ("Failure parsing parameters") after
// `diag`'s notes, errors[] first.
HttpReply refused_job_ref(const RequestContext& ctx, Diagnostics diag, Release release);

bool all_digits(std::string_view s);

std::uint64_t to_u64(std::string_view s);

// How a v0.0.4x path names a job.
struct JobRef {
  bool valid = false;
  bool by_sluid = false;
  std::uint64_t sluid = 0;
  std::uint32_t id = 0;
  std::vector<std::string> warnings;
};

JobRef parse_job_ref_v4x(std::string_view text, Release release);

// slurm_xlate_job_id()@22.05: "123", "123+1" (the component), "123_4"; 0 if not a job id.
std::uint32_t xlate_job_id_v38(std::string_view text, JobStore& store);

// One status[] entry of slurm_kill_jobs()'s answer: {error {string, code, message}, step_id,
// job_id, federation {sibling}}.
void write_kill_status(JsonWriter& out, int code, const std::string& id_text, const JobRecord* job);

// KillResult as slurmctld's error number for slurm_kill_jobs() (0: signalled).
int kill_jobs_code(KillResult result);

// "M_t" (digits, '_', digits): the array's master id and the task id.
struct ArrayTaskRef {
  std::uint32_t master = 0;
  std::uint32_t task = 0;
};
std::optional<ArrayTaskRef> parse_array_task_ref(std::string_view text);

std::string iso_time(std::int64_t unix_s);

// A time in a v0.0.4x query: v0.0.42 on first turns a number into one (data_convert_type in
// _parse_timestamp at slurm-24-11-7-1), then hands a string to parse_time(); v0.0.40/41 hand
// every value to parse_time(), which refuses a bare number (error 9202 on real 23.11.11 and
// 24.11.7) and reads "uts<N>".
std::optional<std::int64_t> parse_time_param(const std::string* value, Dialect dialect);

// The data_parser's own error for a time it could not read, before the handler's 9000.
void time_refused(Diagnostics& diag, Dialect dialect, const std::string& key, const std::string& value);

// The status of a query whose time was refused: the handler's 9000, except that 23.11 and
// 24.05 answer with the parser's 9202, which their table makes a 500 (real 23.11.11: 500;
// real 24.11.7: 422).
int time_refused_status(Release release);

// The jobs GET slurmdb/.../jobs looks at: by job_name, else by step (job id or, on
// v0.0.45, SLUID), else all; in the order they were created, each once.
std::vector<JobStore::JobPtr> dbd_candidates(JobStore& store, const std::string* names, const std::string* steps,
                                             Dialect dialect);

std::set<std::string> csv_set(const std::string* text);

// What GET slurmdb/.../jobs keeps of its candidates: state, user and partition filters and
// the time window.
struct DbdFilter {
  std::optional<std::int64_t> start_time;
  std::optional<std::int64_t> end_time;
  std::optional<std::int64_t> submit_time;
  bool steps = false;
  std::set<std::string> states;
  std::set<std::string> users;
  std::set<std::string> partitions;
  std::int64_t window_start = 0;
  std::int64_t window_end = 0;

  // slurmdb_job_cond_def_start_end(): without step or state, an unset start_time means
  // midnight today; an unset end means now.
  void set_window(std::int64_t now_s, bool state_given) {
    if (start_time) {
      window_start = *start_time;
    } else if (!steps && !state_given && !submit_time) {
      window_start = now_s - (now_s % 86400);
    }
    window_end = end_time ? *end_time : now_s;
  }

  bool matches(const JobRecord& job) const {
    if (!states.empty() && !states.count(std::string(base_state_name(job.state)))) return false;
    if (!users.empty() && !users.count(job.user_name)) return false;
    if (!partitions.empty() && !partitions.count(job.partition)) return false;
    if (submit_time) return job.submit_time >= *submit_time && job.submit_time <= window_end;
    if (!steps || start_time || end_time) {
      // The usage window: the job was eligible or running at some point inside it.
      if (job.eligible_time > window_end) return false;
      if (is_finished(job.state) && job.end_time < window_start) return false;
    }
    return true;
  }
};

}  // namespace api_support
}  // namespace tpslurm::sim
