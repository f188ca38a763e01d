// MeteredTransport: a Transport (transport.h) that records every exchange of the transport it
// wraps in metrics::Metrics — one call, its body bytes each way, its time, and an error when
// it was not answered (the delivery: not_sent, uncertain) or answered 4xx/5xx — and hands the
// exchange back unchanged. The real connection (cli/slurm_connection.h) puts it around the
// CurlTransport when `serve` has metrics.
//
// The endpoint label is the request's path template, never the raw target: the query is
// dropped, the API version too, and a job id or SLUID is folded to `{id}`, so the label set
// stays bounded whatever jobs exist. Thread-safe as the wrapped transport; borrows both.
#pragma once

#include <string>
#include <string_view>

#include "metrics/metrics.h"
#include "slurm/transport.h"

namespace tpslurm::slurm {

// "/slurm/v0.0.45/job/123?signal=KILL" -> "job/{id}"; "/slurm/v0.0.45/jobs/state?job_id=1" ->
// "jobs/state"; "/slurmdb/v0.0.38/jobs?job_name=x" -> "slurmdb/jobs". The templates the client
// uses (dialect.h): job/submit, job/{id}, jobs, jobs/state, ping, diag, partitions under
// /slurm/, and jobs, job/{id}, diag, ping under /slurmdb/; anything else is "other".
std::string endpoint_label(std::string_view target);

// The error label of an exchange for metrics::RestCall (empty: none).
std::string_view error_label(const HttpExchange& exchange);

class MeteredTransport final : public Transport {
 public:
  MeteredTransport(Transport& inner, metrics::Metrics& metrics) : m_inner(inner), m_metrics(metrics) {}

  HttpExchange perform(const HttpRequest& request) override;
  std::string endpoint() const override { return m_inner.endpoint(); }

 private:
  Transport& m_inner;
  metrics::Metrics& m_metrics;
};

}  // namespace tpslurm::slurm
