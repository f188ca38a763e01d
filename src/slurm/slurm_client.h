// SlurmClient: the seam the reconciler, the CLI and doctor use to talk to Slurm.
//
// Every call returns a result value that says what the call amounted to (`outcome`, see
// outcome.h), Slurm's own words (`message`, `errors`, `warnings`), and the server's release
// read from that answer's `meta` — the release, not the URL version, decides which id an
// operation may use (server_info.h, ARCHITECTURE.md §4). Nothing throws.
//
// Submits go on a fresh connection that is never reused (transport.h). On 22.05 a bad token
// makes a submit look like any other 500; callers run preflight() — a cheap authenticated
// call — before each batch of submits so that an auth failure is found before a submit can
// become `uncertain`.
//
// Implementations are safe to call from several threads. Part 2 adds bulk_state() and
// find_jobs_by_tag() (issue 5) to this interface.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "model/job_snapshot.h"
#include "model/submit_description.h"
#include "slurm/outcome.h"
#include "slurm/server_info.h"

namespace tpslurm::slurm {

struct CallResult {
  Outcome outcome = Outcome::uncertain;
  // "POST /slurm/v0.0.45/job/submit: Invalid feature specification (error 2029)"; for `ok` the
  // warnings and non-fatal errors, if any. Never contains a secret.
  std::string message;
  int http_status = 0;      // 0 when no answer came
  std::string release;      // the server's release from this answer's meta; empty if none
  std::string dialect;      // the REST version used: "v0.0.45"
  std::vector<SlurmMessage> errors;
  std::vector<SlurmMessage> warnings;
  std::string transport_detail;  // the transport's own words, for logs (no secrets)

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
  bool already_done = false;  // ok, but Slurm said the job had already finished (2021)
};

struct PingResult : CallResult {
  bool responding = false;
  std::string status;
};

struct PartitionsResult : CallResult {
  std::vector<std::string> names;
};

struct ServerResult : CallResult {
  std::vector<std::string> offered;  // the supported REST versions this server answers
  std::optional<SlurmRelease> server_release;
  IdPolicy policy;  // for `dialect` on `server_release`
};

// A job as the caller knows it. Operations use the SLUID when the server accepts SLUIDs in
// paths (>= 26.05) and one is given, else the numeric id.
struct JobRef {
  std::uint32_t job_id = 0;
  std::string sluid;
};

class SlurmClient {
 public:
  virtual ~SlurmClient() = default;

  // Probes every supported REST version (ping), records which ones the server offers and its
  // release, and settles the dialect: the configured one, or with "auto" the newest offered.
  // With "auto", other calls run it on first use.
  virtual ServerResult detect() = 0;
  // A cheap call that slurmctld authenticates: `auth` means the token is refused.
  virtual CallResult preflight() = 0;
  virtual SubmitResult submit(const model::SubmitDescription& description) = 0;
  // All components when the id is a heterogeneous job's leader. `not_found` for unknown jobs.
  virtual JobsResult get_job(const JobRef& job) = 0;
  // v0.0.38's bulk state: every job when anything changed since `since` (empty: all jobs).
  virtual JobsResult jobs_changed_since(std::optional<TimePoint> since) = 0;
  // `signal` empty: Slurm's default, SIGKILL. ok (maybe already_done), not_found, or
  // rejected_transient when Slurm refused to signal (retry and report).
  virtual CancelResult cancel(const JobRef& job, std::string_view signal = {}) = 0;
  virtual PingResult ping() = 0;
  virtual PartitionsResult partitions() = 0;
};

}  // namespace tpslurm::slurm
