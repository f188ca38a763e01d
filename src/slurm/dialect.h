// Dialect: one REST version's codec, behind one interface (issue 4 "Dialects").
//
// A dialect turns a dialect-neutral model::SubmitDescription into that version's submit body
// and paths, and reads that version's answers back into dialect-neutral replies (JobSnapshot
// records, errors, warnings, the server's release). Job-level fields of the description are
// copied to every component, requeue is always disabled on every component, and every number
// and state comes out decoded. Dialects do no I/O and hold no state: they are safe to share
// between threads. Boost.JSON stays inside the .cc files.
//
// Decoders return `corrupt` when the body is not the JSON this version answers with; the
// caller then classifies the exchange as having an unparsable body (outcome.h).
//
// The codecs: v0.0.40 to v0.0.45 share one implementation (data_parser dialects differ only
// in which fields exist, dialect_v004x.h, and follow the server's release in a few rules,
// server_info.h); v0.0.38 is its own (dialect_v0038.h). Decoding of envelopes common to all of them lives in json_dialect.h.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "model/job_snapshot.h"
#include "model/submit_description.h"
#include "slurm/association.h"
#include "slurm/job_state_entry.h"
#include "slurm/node_resources.h"
#include "slurm/outcome.h"
#include "slurm/server_info.h"
#include "slurm/transport.h"

namespace tpslurm::slurm {

// What every answer carries.
struct ReplyBase {
  std::string release;  // meta.slurm.release ("26.05.3"); empty when the body had none
  std::vector<SlurmMessage> errors;
  std::vector<SlurmMessage> warnings;
};

struct SubmitReply : ReplyBase {
  std::optional<std::uint32_t> job_id;  // the leader's id for a heterogeneous job
  std::string job_id_problem;           // a `job_id` was there but is not a Slurm job id (receipt.h)
  std::string user_message;             // job_submit_user_msg
};

struct JobsReply : ReplyBase {
  std::vector<model::JobSnapshot> jobs;  // one record per heterogeneous component
};

// Whose job records a list holds: slurmctld's (GET jobs, job/{id}) or slurmdbd's
// (GET slurmdb/vX/jobs).
enum class RecordSource { slurmctld, slurmdbd };

// A job list decoded as its body arrives (a BodyReader, transport.h): take() every piece, then
// finish() once for what decode_jobs() or decode_db_jobs() of the whole body returns. Only
// the records and the envelope are kept, never the body. One decoder reads one answer.
class JobsDecoder : public BodyReader {
 public:
  virtual Result<JobsReply> finish() = 0;
};

enum class CancelStatus {
  signalled,     // the signal was sent
  already_done,  // error 2021: the job already finished (or is completing)
  not_found,     // error 2017: slurmctld does not know the job
  // error 2020 (ESLURM_TRANSITION_STATE_NO_UPDATE): slurmctld signals only running jobs, and
  // answers a signal other than SIGKILL to a pending or suspended one with it (job_mgr.c
  // job_signal at slurm-22-05-8-1 and slurm-26-05-3-1); nothing was signalled
  not_running,
  refused,  // any other error: nothing was signalled; retry and report
};

struct CancelReply : ReplyBase {
  CancelStatus status = CancelStatus::signalled;
  std::vector<SlurmMessage> refusals;  // v0.0.4x status[].error, v0.0.38 errors[]
};

struct PingReply : ReplyBase {
  bool responding = false;  // slurmctld answered (26.05 also says false for a bad token)
  std::string status;       // "No error", "UP", "Protocol authentication error", ...
};

struct PartitionsReply : ReplyBase {
  std::vector<std::string> names;
};

struct NodesReply : ReplyBase {
  std::vector<NodeResources> nodes;
};

struct AssociationsReply : ReplyBase {
  std::vector<Association> associations;  // none when the answer holds no list (22.05's 9003)
};

struct JobsStateReply : ReplyBase {
  // As answered: a component asked twice appears twice; an array entry's array_job_id is the
  // id before "_" (job_state_entry.h).
  std::vector<JobStateEntry> entries;
};

struct DiagReply : ReplyBase {
  std::optional<std::int64_t> request_time;  // diag's statistics.req_time: the server's "now"
  // statistics.dbd_agent_queue_size: records slurmctld has not yet handed to slurmdbd.
  std::optional<std::int64_t> dbd_agent_queue_size;
};

// `GET conf` (26.05's v0.0.45 only): what this project reads of slurm.conf.
struct ConfReply : ReplyBase {
  std::optional<std::int64_t> max_array_size;   // slurm_conf.MaxArraySize
  std::optional<std::int64_t> max_array_tasks;  // "max_array_tasks=N" of slurm_conf.SchedulerParameters
};

class Dialect {
 public:
  virtual ~Dialect() = default;

  virtual std::string_view version() const = 0;  // "v0.0.45"

  // invalid_argument naming the field when the description cannot be sent (no component,
  // empty script, empty name, empty environment, an array that is heterogeneous, ends before
  // it starts or has the throttle %0). An array goes as `job.array` ("0-999%8").
  virtual Result<std::string> encode_submit(const model::SubmitDescription& description) const = 0;

  virtual Result<ReplyBase> decode_base(std::string_view body) const = 0;
  virtual Result<SubmitReply> decode_submit(std::string_view body) const = 0;
  virtual Result<JobsReply> decode_jobs(std::string_view body) const = 0;
  virtual Result<CancelReply> decode_cancel(std::string_view body) const = 0;
  virtual Result<PingReply> decode_ping(std::string_view body) const = 0;
  virtual Result<PartitionsReply> decode_partitions(std::string_view body) const = 0;
  // `nodes`: each node's name, features (v0.0.38 a comma-separated string, v0.0.4x a list)
  // and GRES; corrupt when the body has no "nodes" list.
  virtual Result<NodesReply> decode_nodes(std::string_view body) const = 0;
  virtual Result<AssociationsReply> decode_associations(std::string_view body) const = 0;
  // `jobs/state` (v0.0.4x only): corrupt when the body has no "jobs" list.
  virtual Result<JobsStateReply> decode_jobs_state(std::string_view body) const = 0;
  // slurmdbd's job records (`/slurmdb/vX/jobs`): name, `comment.job`, working directory,
  // `state.current`, `het`, `time`, exit code, and on v0.0.45 the original SLUID.
  virtual Result<JobsReply> decode_db_jobs(std::string_view body) const = 0;
  virtual Result<DiagReply> decode_diag(std::string_view body) const = 0;
  // `slurm_conf`: MaxArraySize (a number or a {set,number} wrapper) and SchedulerParameters (a
  // list of "name=value" strings, or one comma-separated string); corrupt without `slurm_conf`.
  virtual Result<ConfReply> decode_conf(std::string_view body) const = 0;
  // The decoder of one answer of decode_jobs() (slurmctld) or decode_db_jobs() (slurmdbd).
  virtual std::unique_ptr<JobsDecoder> jobs_decoder(RecordSource source) const = 0;

  // Whether the server binds `jobs/state` (23.11.5+ with a data_parser version; not v0.0.38).
  // Without it, polls use `jobs?update_time=`.
  virtual bool has_jobs_state() const = 0;
  // Whether a job update (a hold release) changes only the record it addresses, so each
  // heterogeneous component is released by itself (data_parser versions; 22.05's v0.0.38
  // releases the whole job through its leader).
  virtual bool updates_per_component() const = 0;
  // A time parameter (update_time, slurmdbd's start_time): v0.0.42 on takes Unix seconds;
  // 22.05's dbv0.0.38 and v0.0.40/41 refuse a bare number (errors 9000, 9202) and take
  // "uts<seconds>".
  virtual std::string query_time(std::int64_t unix_seconds) const = 0;
  // jobs?update_time=: the same, but 22.05's v0.0.38 jobs handler reads a bare number.
  virtual std::string update_time_value(std::int64_t unix_seconds) const { return query_time(unix_seconds); }

  // A cheap call that slurmctld authenticates (26.05's ping is not one: it answers 200 with
  // `responding: false` for a bad token).
  virtual std::string preflight_path() const = 0;

  // True when an answer to jobs_path(update_time) means "nothing changed since then":
  // 304 on v0.0.38, 200 with the warning "No job changes since update_time" on v0.0.4x.
  virtual bool unchanged(int http_status, const JobsReply* reply) const = 0;

  std::string submit_path() const;
  // `id` is a job id, "123+1" (sent as %2B) or a SLUID.
  std::string job_path(std::string_view id) const;
  std::string jobs_path(std::optional<std::int64_t> update_time) const;
  // A job update (POST). Job update does not take a SLUID, whatever the release: 26.05.3
  // answers one with 2017 (REAL-26.05-NOTES.md); give it the numeric job id.
  std::string update_path(std::uint32_t job_id) const;
  // The update body that releases a held job: `{"hold": false}` on every version (v0.0.4x's
  // HOLD parser sets priority INFINITE; 22.05's sbatch option `hold` does the same through
  // slurm_opt_create_job_desc).
  std::string hold_release_body() const;
  // `signal` empty: Slurm's default (SIGKILL).
  std::string cancel_path(std::string_view id, std::string_view signal) const;
  std::string ping_path() const;
  std::string partitions_path() const;
  std::string nodes_path() const;
  // slurmdbd's associations of one user (`associations?user=`); every version reads the filter.
  std::string associations_path(std::string_view user) const;
  std::string diag_path() const;
  // slurmctld's configuration (`conf`): only 26.05 binds it, and only under v0.0.45.
  std::string conf_path() const;
  // `DELETE jobs` (23.11.6 on): the ids and the signal go in its body (kill_jobs_body).
  std::string kill_jobs_path() const;
  // {"jobs": ["12_3"], "signal": "SIGUSR1"}; `signal` empty: none (Slurm's default, SIGKILL).
  // The ids and the signal must need no JSON escaping (job ids, "M_t", signal_names.h names).
  std::string kill_jobs_body(std::span<const std::string> ids, std::string_view signal) const;
  // `jobs/state?job_id=1&job_id=2`: one parameter per id (a comma list is a 500 on 26.05.3).
  // Never called with no id: without a filter the endpoint lists every job.
  std::string jobs_state_path(std::span<const std::uint32_t> ids) const;
  // `jobs/state` without a filter: every job slurmctld holds, ~80 B each (the tag search's
  // cheap listing; docs/slurm.md, *What a poll costs*).
  std::string jobs_state_all_path() const;
  // slurmdbd's job search by exact name over a usage window that starts at `start_unix`
  // (without start_time slurmdbd silently searches from midnight today; docs/slurm.md, *slurmdbd's time window*).
  // `job_names` is one name or a comma-separated list of them; the commas go escaped (%2C),
  // because 26.05 answers a literal comma in a query with a 500.
  std::string db_jobs_path(std::string_view job_names, std::int64_t start_unix) const;
};

// What every dialect requires of a description before encoding it: invalid_argument naming
// the field (components, script, tag name, environment, component sizes, array).
Status check_description(const model::SubmitDescription& description);

// The dialects this build speaks, newest first ("auto" tries them in this order), and the
// same as one line ("v0.0.45, v0.0.44, …, v0.0.38").
std::vector<std::string_view> supported_dialects();
std::string supported_dialects_text();
// The REST versions an OpenAPI document (`GET /openapi/v3`) serves slurmctld's paths under,
// oldest first ("v0.0.39", "v0.0.40"); read from its paths, without parsing the whole document.
std::vector<std::string> versions_in_openapi(std::string_view document);
// What an operator can do when a server serves `served` and none of supported_dialects().
std::string advice_for_versions(const std::vector<std::string>& served);
// "a, b, c".
std::string join_versions(const std::vector<std::string>& versions);
// nullptr when the version is not one of them. `release`: the server's, whose rules the codec
// follows (server_info.h); without one, those of the oldest release that serves the version.
std::unique_ptr<Dialect> make_dialect(std::string_view version, std::optional<SlurmRelease> release = std::nullopt);

}  // namespace tpslurm::slurm
