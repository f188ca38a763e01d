// Metrics: the daemon's Prometheus metrics (docs/api.md, *Metrics*), one object per
// `serve` process, owned by the command and borrowed by everything that records.
//
// Counters, gauges and histograms live in a prometheus-cpp registry (its core library only):
// the text is served by the platform API's own Beast server (api/metrics_routes.cc), never by
// a second HTTP stack. The recording methods take plain values, so no prometheus type reaches
// the layers that record (slurm, reconcile, api). What is read from the journal when a scrape
// comes is handed to render() as ScrapeGauges and serialized with the registry; this library
// depends on base only, so that slurm/ can record without depending on the journal.
//
// Every name starts with `tuneplane_` and carries its unit (`_seconds`, `_bytes`, `_total` for
// counters). Label values are bounded by the callers: endpoint templates with ids folded
// (slurm/metered_transport.h), method names, outcome classes, state names — never a job id or
// a raw URL.
//
// Thread-safe: every method may be called from any thread at once (prometheus-cpp's families
// and metrics are). Never throws: a sample prometheus-cpp refuses is dropped, a failed render is
// an error value.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "base/result.h"

namespace tpslurm::metrics {

// One HTTP exchange with slurmrestd.
struct RestCall {
  std::string_view endpoint;       // "job/{id}", "jobs/state", "slurmdb/jobs", ... or "other"
  std::string_view method;         // "GET", "POST", "DELETE"
  std::size_t bytes_sent = 0;      // the request's body
  std::size_t bytes_received = 0;  // the answer's body (0 when none came)
  // Empty when the call was answered below 400; else "not_sent", "uncertain" (the
  // transport's delivery) or "http_4xx", "http_5xx" (the answer's status class).
  std::string_view error;
  std::chrono::microseconds elapsed{0};
};

// Gauges read from the journal at scrape time (api/metrics_routes.cc fills them).
struct ScrapeGauges {
  std::vector<std::pair<std::string, std::int64_t>> attempts_by_state;  // live attempts (cleanup not closed)
  std::vector<std::pair<std::string, std::int64_t>> cleanup_backlog;    // ended attempts by cleanup step
  std::int64_t blocked_submissions = 0;                                 // attempts in submit_unknown
  std::optional<TimePoint> oldest_blocked_intent;                       // none: nothing blocked
  std::int64_t journal_bytes = 0;                                       // the file and its -wal
  std::vector<std::pair<std::string, std::int64_t>> live_jobs_by_user;  // per-user mode: each mapped user
};

class Metrics {
 public:
  // `clock` (for the age of the oldest blocked submission) must outlive the metrics.
  explicit Metrics(const Clock& clock);
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // tuneplane_slurm_rest_calls_total, _errors_total, _sent_bytes_total, _received_bytes_total,
  // _call_duration_seconds.
  void count_rest_call(const RestCall& call);
  // tuneplane_submit_outcomes_total{class}: how a POST job/submit was classified (slurm/outcome.h).
  void count_submit_outcome(std::string_view outcome_class);
  // tuneplane_gpu_hours_total{partition,gpu_series}, tuneplane_cpu_hours_total{partition}: one
  // ended component's usage, when the reconciler journals it (model/usage.h).
  void count_usage(const std::string& partition, const std::string& gpu_series, double gpu_hours, double cpu_hours);
  // tuneplane_status_poll_lag_seconds: the status round's worst lag.
  void set_poll_lag(std::chrono::seconds lag);
  // tuneplane_slurm_request_rate: the calls per second the request budget allows now.
  void set_request_rate(int calls_per_second);
  // tuneplane_journal_commit_duration_seconds: per journal write on the daemon's writer thread,
  // the time of the (group) commit that served it.
  void observe_journal_commit(std::chrono::nanoseconds took);
  // tuneplane_slurm_token_expiry_timestamp_seconds: the JWT's `exp`; nullopt removes the
  // series (the expiry is not known).
  void set_token_expiry(std::optional<TimePoint> expires_at);
  // tuneplane_slurm_server_info{release,rest_version} 1: what serve chose at start ("24.11.7",
  // "v0.0.42"; the release "" when slurmrestd named none).
  void set_slurm_server(std::string release, std::string rest_version);

  // The platform API's connections (api/admission.h, api/connection.h), every label value shown
  // from the start: tuneplane_api_connections_refused_total{reason} — `connections`,
  // `descriptors`, `peer`, `unauthenticated`; tuneplane_api_connection_timeouts_total{phase} —
  // `handshake`, `first_request`, `idle`, `request`; tuneplane_api_connections{state} — open
  // now, `unauthenticated` or `authenticated`.
  void count_api_connection_refused(std::string_view reason);
  void count_api_connection_timeout(std::string_view phase);
  void set_api_connections(std::size_t unauthenticated, std::size_t authenticated);

  // The text exposition format (version 0.0.4) of every metric above and of `gauges`;
  // `permanent` (never expected) when prometheus-cpp refuses to serialize.
  Result<std::string> render(const ScrapeGauges& gauges) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> m_impl;
};

// The Content-Type of render()'s text.
inline constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace tpslurm::metrics
