// SlurmClient: the seam the reconciler, the CLI and doctor use to talk to Slurm.
//
// Every call returns a result value that says what the call amounted to (`outcome`, see
// outcome.h), Slurm's own words (`message`, `errors`, `warnings`), and the server's release
// read from that answer's `meta` — the release, not the URL version, decides which id an
// operation may use (server_info.h, docs/architecture.md §4). Nothing throws.
//
// Submits go on a fresh connection that is never reused (transport.h). On 22.05 a bad token
// makes a submit look like any other 500; callers run preflight() — a cheap authenticated
// call — before each batch of submits so that an auth failure is found before a submit can
// become `uncertain`.
//
// Polling is in bulk (bulk_state), never per job in a loop; find_jobs_by_tags is the search
// lost submit answers need, one per cycle for every blocked attempt. Both report exactly
// what they could and could not learn: an id the server did not report is not the same as an
// id nobody was asked about, and an empty search is only meaningful when every source
// answered and read everything (SearchResult::complete).
//
// Implementations are safe to call from several threads.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "model/job_snapshot.h"
#include "model/job_tag.h"
#include "model/submit_description.h"
#include "slurm/association.h"
#include "slurm/job_state_entry.h"
#include "slurm/outcome.h"
#include "slurm/request_budget.h"
#include "slurm/server_info.h"

namespace tpslurm::slurm {

struct CallResult {
  Outcome outcome = Outcome::uncertain;
  // "POST /slurm/v0.0.45/job/submit: Invalid feature specification (error 2029)"; for `ok` the
  // warnings and non-fatal errors, if any. Never contains a secret.
  std::string message;
  int http_status = 0;  // 0 when no answer came
  std::string release;  // the server's release from this answer's meta; empty if none
  std::string dialect;  // the REST version used: "v0.0.45"
  std::vector<SlurmMessage> errors;
  std::vector<SlurmMessage> warnings;
  std::string transport_detail;  // the transport's own words, for logs (no secrets)
  // rejected, nothing sent: the job had to be addressed by its numeric id, and the record at
  // that id does not carry the ref's tag. slurmctld let the job asked for go and gave its id
  // to another job (ids reset after a restart that lost its state, or wrapping around): the job
  // asked for is not in slurmctld any more, and the one at the id is someone else's, untouched.
  bool another_job = false;

  bool ok() const { return outcome == Outcome::ok; }
};

struct SubmitResult : CallResult {
  std::optional<std::uint32_t> job_id;  // the receipt; the leader's id for a heterogeneous job
  std::string user_message;
};

struct JobsResult : CallResult {
  std::vector<model::JobSnapshot> jobs;  // one record per heterogeneous component
  bool unchanged = false;                // jobs_changed_since: nothing changed (jobs is empty)
};

struct CancelResult : CallResult {
  // ok, but Slurm said the job had already finished or is completing (2021); whatever the
  // signal, nothing was delivered. v0.0.4x only: 22.05's v0.0.38 answers a job that has ended
  // exactly as a delivered signal (its handler counts ESLURM_ALREADY_DONE a success).
  bool already_done = false;
  // rejected_transient, and Slurm said the job is not running (2020, "Job can not be altered
  // now, try again later"): a signal other than the kill reached a job that is still pending
  // (or suspended); nothing was signalled and nothing changed. Slurm delivers signals only to
  // running jobs: send it again once the job runs, or cancel with the default kill, which a
  // pending job takes. Other rejected_transient answers (another user's job, a pending het
  // component addressed alone, ...) leave it false. A heterogeneous leader is the exception to
  // "nothing was signalled": Slurm signals every component and reports the last refusal, so
  // at least one component was not running and those that were running did get the signal.
  // Never set for the default kill (SIGKILL), which a job in any state takes.
  bool not_running = false;
};

struct ReleaseResult : CallResult {
  bool already_ended = false;  // ok, but Slurm said the job had already finished (2084)
};

struct PingResult : CallResult {
  bool responding = false;
  std::string status;
};

struct AccountingResult : CallResult {
  // ok: slurmrestd serves slurmdbd's endpoints (present) or answers that it serves none (404:
  // absent). Any other outcome says nothing either way.
  bool present = false;
};
struct UsageResult : CallResult {
  // ok and true: slurmrestd serves no slurmdbd endpoints (404): the cluster keeps no accounting.
  bool accounting_off = false;
  // slurmdbd's records that carry the asked tag, each with its allocation; empty when slurmdbd
  // has none (yet: slurmctld may not have sent it).
  std::vector<model::JobSnapshot> records;
};
struct DiagResult : CallResult {
  // Records slurmctld holds for slurmdbd and has not sent yet (diag's dbd_agent_queue_size):
  // while any are queued, slurmdbd's silence about a job proves nothing. Empty when the answer
  // did not say.
  std::optional<std::int64_t> dbd_agent_queue_size;
};
struct AssociationsResult : CallResult {
  // ok and true: slurmrestd serves no slurmdbd endpoints (404): the cluster keeps no accounting.
  bool accounting_off = false;
  std::vector<Association> associations;  // ok: the user's, none when slurmdbd holds none
};
struct PartitionsResult : CallResult {
  std::vector<std::string> names;
};

struct ServerResult : CallResult {
  std::vector<std::string> offered;  // the supported REST versions this server answers
  std::optional<SlurmRelease> server_release;
  IdPolicy policy;  // for `dialect` on `server_release`
};

struct BulkStateResult : CallResult {
  // One entry per job id reported, ascending; components of an asked heterogeneous leader
  // are reported too. The outcome is ok only when every call answered.
  // An asked job array's master brings one entry per task: each task still pending in the meta
  // record (job_id the master's) and each task split off (job_id its own), all with
  // array_job_id the master's and array_task_id the task's; a meta record left without
  // pending tasks is one entry without a task id. Ask the master's id: on v0.0.4x the answer
  // does not name a split task's master, so array_job_id is the asked id the entry came for
  // (a task's own id asked alone reads as a master of its own).
  std::vector<JobStateEntry> states;
  // Asked, answered, and absent from the answer: slurmctld does not know them (any more).
  std::vector<std::uint32_t> not_reported;
  // Asked in a call that failed or was never made (budget): nothing is known about them.
  std::vector<std::uint32_t> unanswered;
  // v0.0.38 only: the full records behind `states` (its fallback fetches them anyway).
  std::vector<model::JobSnapshot> records;
  // Polls that list full records (v0.0.38, and 23.11.0-4 without jobs/state) only: asked
  // masters whose meta record lists its pending tasks cut short (array_task_string ending
  // "...", past 61 characters): their tasks in no entry are unknown, never absent. GET job/{M}
  // prints the same string and job/{M}_{t} of a pending task is an error (9002) on 22.05, so
  // nothing better can be read; jobs/state lists every task.
  std::vector<std::uint32_t> incomplete_arrays;
  // v0.0.38 only: 304, nothing changed anywhere since `since`; nothing else is filled in.
  bool unchanged = false;
  // v0.0.38 only: pass as `since` next time (server clock, never later than the truth);
  // empty when the server's clock could not be read, and the next poll lists every job.
  std::optional<TimePoint> next_since;
  // v0.0.38 only: why next_since is empty (the server's clock could not be read).
  std::string clock_note;
  int calls = 0;  // REST calls made
};

// What slurmctld's configuration says of job arrays (SlurmClient::array_limits).
struct ArrayLimitsResult : CallResult {
  // ok and true: the values below are the server's; ok and false: this server does not serve
  // its configuration (only 26.05's v0.0.45 has `GET conf`), so the caller uses its setting.
  bool served = false;
  // MaxArraySize: every task id must be below it (0: no arrays); empty when the answer lacked it.
  std::optional<std::uint32_t> max_array_size;
  // SchedulerParameters max_array_tasks=N: the most tasks one array may have; empty when not
  // set (then MaxArraySize alone bounds an array).
  std::optional<std::uint32_t> max_array_tasks;
};

enum class SearchSource { slurmctld, slurmdbd };
std::string_view to_string(SearchSource source);  // "slurmctld job list", "slurmdbd job search"

struct SourceReport {
  SearchSource source = SearchSource::slurmctld;
  Outcome outcome = Outcome::not_sent;  // ok: the source answered
  std::string message;                  // why it failed, or notes ("window on the local clock")
  // Job records the source returned: slurmctld's read in full; slurmdbd's bearing the tag's
  // name (a batched call answers for several names).
  int records = 0;
  int skipped = 0;  // slurmctld's cheap way: jobs it listed but did not read in full
  // The source compared every job it holds with the tag: only then does its empty answer say
  // "not there". False for slurmctld's cheap way (SearchOptions), whatever it skipped.
  bool exhaustive = true;
  // slurmdbd only: slurmrestd serves no slurmdbd endpoints (404): the cluster keeps no
  // accounting, so there is nothing to read; a search is complete without it.
  bool absent = false;
};

struct SearchMatch {
  model::JobSnapshot job;  // one heterogeneous component per match
  SearchSource source = SearchSource::slurmctld;
  int marks = 0;  // how many of name, comment and working directory match: 2 or 3
};

struct SearchResult : CallResult {
  // Every record that carries the tag (two of three marks), slurmctld's when both know it.
  std::vector<SearchMatch> matches;
  std::vector<SourceReport> sources;  // every source, in the order consulted
  // slurmdbd's start_time: the intent time minus a day, on the server's clock when it could
  // be read (`window_on_server_clock`), else on the local clock.
  std::optional<TimePoint> window_start;
  bool window_on_server_clock = false;
  // Every source answered and was exhaustive (or is absent: no accounting): only then does an
  // empty `matches` say "no such job" (an operator's `resolve --absent` needs this).
  bool complete() const;
  // slurmdbd was absent: what Slurm purged is known only from the attempt's own evidence.
  bool without_accounting() const;
};

// How find_jobs_by_tags reads slurmctld's jobs. slurmctld has no name filter: the full
// listing (`GET jobs`) costs every job's record (~8 kB a job on 26.05, 1.28 s per 2,000;
// docs/slurm.md, *What a poll costs*). On v0.0.4x the cheap way lists every job id with `jobs/state` (~80 B a
// job) and reads in full (`GET job/{id}`) only the ids that are neither in `known_ids` nor
// read by an earlier search of this client and found to carry fewer than two of any asked
// tag's marks; when more than `max_record_gets` remain it lists every job in full instead. A
// cheap search is never proof of absence (a name edited since it was read, an id purged and
// reused between two listings): its slurmctld report is not exhaustive and its results are
// not complete(). 22.05 (v0.0.38) has no jobs/state: it always lists every job in full.
struct SearchOptions {
  // The full listing, no cache, no skipping: the only way a v0.0.4x search can be complete().
  bool full = false;
  // Ids the caller already holds (the journal's own jobs, every het component's id): they
  // cannot be a lost submit's job, so the cheap way does not read them. Any order.
  std::vector<std::uint32_t> known_ids;
  std::size_t max_record_gets = 100;
  // Whose listings the search reads (per-user mode): the user of the attempts whose tags are
  // searched. Slurm always shows a user its own jobs; with PrivateData=jobs it hides every
  // other user's from anyone but an operator, so only the job's own user's empty answer says
  // the job is not there. Empty: the service identity's.
  std::string as_user;
};

struct BatchSearchResult : CallResult {
  // One per tag, in the order given; each with its own matches and source reports, so that
  // complete() means for it what it means for find_jobs_by_tag.
  std::vector<SearchResult> searches;
  int calls = 0;                // REST calls sent
  std::int64_t bytes_read = 0;  // response bodies received
  int record_gets = 0;          // slurmctld records read one by one (the cheap way)
  bool full_listing = false;    // slurmctld's full `GET jobs` was made
  int slurmdbd_calls = 0;       // slurmdbd searches (names batched per call)
};

// A job as the caller knows it. Operations use the SLUID when the server accepts SLUIDs in
// paths (>= 26.05) and one is given, else the numeric id. `tag` (optional) lets cancel verify
// a job it can only address by id (below).
struct JobRef {
  JobRef(std::uint32_t id = 0, std::string run_sluid = {}, std::optional<model::JobTag> job_tag = std::nullopt,
         std::string job_unix_user = {})
      : job_id(id), sluid(std::move(run_sluid)), tag(std::move(job_tag)), unix_user(std::move(job_unix_user)) {}

  std::uint32_t job_id = 0;
  std::string sluid;
  std::optional<model::JobTag> tag;
  // Per-user mode: the job's user, whom a call about it goes as (TokenSource::credentials_for);
  // empty: the service identity.
  std::string unix_user;
};

class SlurmClient {
 public:
  virtual ~SlurmClient() = default;

  // Probes every supported REST version (ping), records which ones the server offers and its
  // release, and settles the dialect: the configured one, or with "auto" the newest offered.
  // With "auto", other calls run it on first use.
  virtual ServerResult detect() = 0;
  // A cheap call that slurmctld authenticates: `auth` means the token is refused. `as_user`
  // (per-user mode): the call goes as that user (TokenSource::credentials_for), and `auth`
  // means Slurm will not let this daemon act as it; empty: the service identity.
  virtual CallResult preflight(const std::string& as_user = {}) = 0;
  // Until when the client's request budget is backing off (every call before then is
  // `not_sent`); empty without a budget or a back-off. The time may be past already.
  virtual std::optional<TimePoint> backing_off_until() const { return std::nullopt; }
  // `reserved`: the call taken from the request budget before the intent was journaled
  // (RequestBudget::reserve_submit); held, the POST goes without asking the budget again, and
  // a submit that is not sent gives it back. Without one the budget is asked as for any call.
  virtual SubmitResult submit(const model::SubmitDescription& description, Reservation reserved = {}) = 0;
  // All components when the id is a heterogeneous job's leader. `not_found` for unknown jobs.
  virtual JobsResult get_job(const JobRef& job) = 0;
  // v0.0.38's bulk state: every job when anything changed since `since` (empty: all jobs).
  virtual JobsResult jobs_changed_since(std::optional<TimePoint> since) = 0;
  // `signal` empty: Slurm's default, SIGKILL, which ends the job whatever its state. Otherwise
  // one of sendable_signals() (signal_names.h), spelled exactly so: any other name is
  // `rejected` before anything is sent (not even detection), because slurmrestd 25.05-26.05
  // kill the job when they cannot parse the name. ok (maybe already_done), not_found,
  // rejected_transient when Slurm refused to signal (retry and report; not_running tells the
  // refusal of a signal to a job that is not running yet from the others). When the job must
  // be addressed by id (no SLUID in paths before 26.05), a job id may since have been reused or
  // the job requeued: if the ref carries a SLUID (on a server whose records have one) or a tag,
  // the job is read first and only cancelled when its record still carries them; otherwise
  // the answer is `rejected` and nothing is signalled (`another_job` when the record does not
  // carry the tag: the job asked for is no longer at that id).
  virtual CancelResult cancel(const JobRef& job, std::string_view signal = {}) = 0;
  // Releases a job submitted held (SubmitDescription::hold): `POST job/<numeric id>` with
  // `{"hold": false}`, always by the numeric id (job update takes no SLUID). ok (maybe
  // already_ended: 2084), not_found (2017), rejected (Slurm explained a refusal), uncertain
  // (no answer, or an answer that does not say). Releasing a job that is not held is ok.
  // Like cancel, a ref carrying a tag (or a SLUID the server's records have) is read first and
  // only released when the record still carries it, else `rejected` (maybe `another_job`) and
  // nothing is sent. A heterogeneous job: 22.05 releases every component with its leader;
  // 25.05-26.05 release only the record addressed, so on v0.0.4x the job is read first and
  // every component is released by its own id, the leader last (a job whose leader is held has
  // not been released).
  // `checked`: the job's records as the caller read and checked them against its tag moments
  // before (identify, in the same pass): then the job is not read again and the components come
  // from them. A numeric id names another job only once Slurm has purged this one's record
  // (MinJobAge after it ended), which cannot happen in between; a job that ended meanwhile
  // answers already_ended.
  virtual ReleaseResult release_hold(const JobRef& job, std::span<const model::JobSnapshot> checked = {}) = 0;
  // Cancels (or signals) task `task` of the job array whose master is `master` and nothing else,
  // by the path the server's release allows (ArrayTaskCancel, server_info.h): `DELETE
  // job/{M}_{t}` on 22.05 and from 24.11, `DELETE jobs` {"jobs": ["M_t"]} on 23.11.7 to 24.05.
  // `signal` as for cancel(). A master carrying a tag (or a SLUID its records have) is read
  // first and the task is only signalled when the master's record still carries it, as cancel
  // does. Results as cancel's: ok (already_done), not_found (no such array or task),
  // rejected_transient (not_running), ...
  // 23.11.0 to 23.11.6 have no path that signals one task alone: a pending task cannot be
  // cancelled alone there, and the answer is `rejected` with nothing sent. A task that has
  // started was split off under a job id of its own; pass that record as `own` (its id and
  // tag, from bulk_state or get_job of the master) and on those releases it is cancelled by
  // that id, as cancel() does (23.11's slurmctld signals a split task's own id alone:
  // job_mgr.c job_str_signal at slurm-23-11-11-1). Elsewhere `own` is not used: 22.05 refuses a
  // split task's own id (2017, arrays-v0.0.38/12) while `M_t` reaches it. A caller on 23.11.0-6
  // with a task still pending can only wait for it to start, or cancel the whole array.
  virtual CancelResult cancel_array_task(const JobRef& master, std::uint32_t task, std::string_view signal = {},
                                         const std::optional<JobRef>& own = std::nullopt) = 0;
  // MaxArraySize and max_array_tasks from `GET conf` where the server serves its configuration
  // (26.05's v0.0.45, when that is the dialect in use); elsewhere ok with `served` false and
  // nothing sent.
  virtual ArrayLimitsResult array_limits() = 0;
  virtual PingResult ping() = 0;
  // slurmctld's statistics (`GET diag`).
  virtual DiagResult diag() = 0;
  // Whether the cluster keeps accounting that slurmrestd serves: one cheap slurmdbd job search.
  virtual AccountingResult accounting() = 0;
  virtual PartitionsResult partitions() = 0;
  // slurmdbd's associations of `user`, asked as that user (a user may always read its own).
  // 22.05 answers a user without any with HTTP 500 and error 9003 ("Nothing found"): ok, none.
  virtual AssociationsResult associations(const std::string& user) = 0;
  // What slurmdbd recorded of the jobs carrying `tag` (each component's allocation and elapsed
  // time): one exact `job_name` search over a window from `since` minus a day, as `as_user`
  // (per-user mode: the job's user, whom slurmdbd's PrivateData=jobs never hides its own
  // records from; empty: the service identity).
  virtual UsageResult job_usage(const model::JobTag& tag, TimePoint since, const std::string& as_user = {}) = 0;

  // The states of `ids` in as few calls as the limits allow. Give every component id of a
  // heterogeneous job (a component asked on its own is reported even when its leader is not
  // asked); zeros and duplicates are dropped. v0.0.4x asks `jobs/state` with repeated numeric
  // `job_id` parameters (it ignores SLUIDs), batched under a URL length bound; `since` is not
  // used. v0.0.38 (22.05) has no jobs/state: it lists `jobs?update_time=<since>` (304 when
  // nothing changed anywhere; else every job of every user, so mind the bytes) and reports the
  // asked ones.
  virtual BulkStateResult bulk_state(std::span<const std::uint32_t> ids, std::optional<TimePoint> since = {}) = 0;

  // Every job carrying `tag`: slurmctld's job list, then slurmdbd's exact `job_name` search
  // over a usage window from `intent_time` (the local clock's time the attempt was journaled
  // `submitting`) minus a day on the server's clock. A record matches when two of name,
  // comment and working directory match (model::JobTag::identifies).
  // It is find_jobs_by_tags for one tag with SearchOptions::full, as `as_user` (SearchOptions).
  virtual SearchResult find_jobs_by_tag(const model::JobTag& tag, TimePoint intent_time,
                                        const std::string& as_user = {}) = 0;

  // The search for every blocked attempt at once: ONE slurmctld listing (full or cheap, see
  // SearchOptions) and slurmdbd's `job_name` searches with as many names per call as fit
  // under BulkLimits::max_target_bytes (job_name is a comma-separated list of exact names to
  // slurmdbd: dbv0.0.38 splits it with slurm_addto_char_list, v0.0.4x's CSV_STRING_LIST parser
  // with strtok; both end in `job_name='a' || job_name='b'`), all over one window from
  // `earliest_intent` (the earliest of the attempts' intent times) minus a day. A tag without
  // a name, or whose name holds a comma, gets a `rejected` result and is not searched.
  virtual BatchSearchResult find_jobs_by_tags(std::span<const model::JobTag> tags, TimePoint earliest_intent,
                                              const SearchOptions& options = {}) = 0;
};

}  // namespace tpslurm::slurm
