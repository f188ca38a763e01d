// RestClient: SlurmClient (slurm_client.h) over a Transport, a TokenSource and the dialects.
//
// Owns nothing it is given: the transport, the token source, the clock and the budget must
// outlive it. The dialect, the last server release seen and the server clock estimate are
// guarded; calls may run on several threads. Headers X-SLURM-USER-NAME and X-SLURM-USER-TOKEN
// go with every request (22.05 needs both); a token that cannot be had makes the call `auth`
// without sending anything, and a call the request budget refuses is `not_sent`.
//
// Searches by tag keep what they read (slurmctld_listing.h) so that the next cheap search
// reads less; the listing's timeout grows with the jobs last seen listed.
//
// The server's clock (for slurmdbd's search window and 22.05's update_time baseline) is read
// from `GET diag` (`statistics.req_time`) when the last reading is older than
// `server_clock_max_age`; a server that will not say leaves the local clock in use, which the
// results report.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "base/clock.h"
#include "slurm/bulk_state.h"
#include "slurm/dialect.h"
#include "slurm/jwt_source.h"
#include "slurm/request_budget.h"
#include "slurm/rest_call.h"
#include "slurm/server_clock.h"
#include "slurm/slurm_client.h"
#include "slurm/slurmctld_listing.h"
#include "slurm/transport.h"

namespace tpslurm::slurm {

struct RestClientOptions {
  const Clock* clock = nullptr;     // null: the system clock
  RequestBudget* budget = nullptr;  // null: no budget, no back-off
  BulkLimits bulk;
  std::chrono::seconds server_clock_max_age{600};
  // The transport's total timeout for one ordinary request (Settings::request_timeout).
  std::chrono::milliseconds request_timeout{60000};
  // What the full job listing gets on top of request_timeout for each job expected
  // (26.05.3 listed 2,000 jobs in 1.28 s on 2 shared cores: docs/slurm.md, *What a poll costs*).
  std::chrono::milliseconds listing_time_per_job{2};
};

// Every node's features and GRES (RestClient::nodes()).
struct NodesResult : CallResult {
  std::vector<NodeResources> nodes;
};

class RestClient final : public SlurmClient {
 public:
  // `api_version` is "auto" or one of supported_dialects(); invalid_argument otherwise, or
  // when the bulk limits are not valid.
  static Result<std::unique_ptr<RestClient>> create(Transport& transport, TokenSource& tokens, std::string api_version,
                                                    RestClientOptions options = {});

  ServerResult detect() override;
  CallResult preflight(const std::string& as_user = {}) override;
  SubmitResult submit(const model::SubmitDescription& description, Reservation reserved = {}) override;
  JobsResult get_job(const JobRef& job) override;
  JobsResult jobs_changed_since(std::optional<TimePoint> since) override;
  CancelResult cancel(const JobRef& job, std::string_view signal = {}) override;
  ReleaseResult release_hold(const JobRef& job, std::span<const model::JobSnapshot> checked = {}) override;
  // In rest_client_arrays.cc.
  CancelResult cancel_array_task(const JobRef& master, std::uint32_t task, std::string_view signal = {},
                                 const std::optional<JobRef>& own = std::nullopt) override;
  ArrayLimitsResult array_limits() override;
  PingResult ping() override;
  DiagResult diag() override;
  AccountingResult accounting() override;
  AssociationsResult associations(const std::string& user) override;
  UsageResult job_usage(const model::JobTag& tag, TimePoint since, const std::string& as_user = {}) override;
  PartitionsResult partitions() override;
  // Every node's features and GRES (GET nodes), for doctor's check of the GPU series; not on
  // the SlurmClient seam, which the reconciler uses and which never needs it.
  NodesResult nodes();
  std::optional<TimePoint> backing_off_until() const override;
  BulkStateResult bulk_state(std::span<const std::uint32_t> ids, std::optional<TimePoint> since = {}) override;
  SearchResult find_jobs_by_tag(const model::JobTag& tag, TimePoint intent_time,
                                const std::string& as_user = {}) override;
  BatchSearchResult find_jobs_by_tags(std::span<const model::JobTag> tags, TimePoint earliest_intent,
                                      const SearchOptions& options = {}) override;

  const ServerClock& server_clock() const { return m_server_clock; }
  const SlurmctldListing& slurmctld_listing() const { return m_listing; }

 private:
  RestClient(Transport& transport, TokenSource& tokens, std::string api_version, RestClientOptions options);

  // The dialect to use, detecting it first if needed; null with `failure` filled otherwise.
  std::shared_ptr<const Dialect> dialect(CallResult& failure);
  // detect()'s one line when no version this build speaks is usable: what the server offers
  // (or, when none of ours, what its OpenAPI document lists) and what to do.
  std::string no_common_dialect(const ServerResult& probed, const std::string& release);
  std::optional<std::string> job_id_text(const JobRef& job, CallResult& failure);
  IdPolicy policy(std::string_view dialect);
  // Before an operation by numeric id: when the ref carries a tag (or a SLUID the server's
  // records have), or `read_anyway`, reads the job and checks what the ref carries.
  struct IdentityCheck {
    std::optional<CallResult> refused;        // the result to return instead of `request`
    std::vector<model::JobSnapshot> records;  // what the read returned (empty: no read)
  };
  // `request` is what would be sent ("DELETE /slurm/v0.0.45/job/12"), `verb` what it does
  // ("cancelled"), both for messages.
  IdentityCheck check_identity(const Dialect& codec, const JobRef& job, const std::string& request,
                               std::string_view verb, bool read_anyway);
  // What a decoded cancel answer amounts to for `signal` (sets already_done, not_running).
  static Classification cancel_classification(const CancelReply& reply, std::string_view signal,
                                              CancelResult& result);
  // The server's release, asking ping once when no answer has named it yet.
  // `failure` says why not when it cannot be had.
  std::optional<SlurmRelease> known_release(const Dialect& codec, CallResult& failure);
  // One POST of the hold release for `job_id`.
  ReleaseResult post_release(const Dialect& codec, std::uint32_t job_id, std::string_view as_user);
  // Reads diag's req_time unless a recent reading exists, a second time if the first was sent
  // and failed; empty on success, else why not.
  std::string refresh_server_clock(const Dialect& codec);

  static const SystemClock kSystemClock;

  const std::string m_api_version;
  const RestClientOptions m_options;
  RestCaller m_caller;
  ServerClock m_server_clock;
  SlurmctldListing m_listing;
  std::mutex m_mutex;
  std::shared_ptr<const Dialect> m_dialect;
  std::optional<SlurmRelease> m_dialect_release;  // whose rules m_dialect follows
};

}  // namespace tpslurm::slurm
