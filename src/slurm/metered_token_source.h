// MeteredTokenSource: a TokenSource (jwt_source.h) that tells metrics::Metrics the expiry
// (the JWT's `exp`) of every token the source it wraps hands out — read from the file or
// minted — and hands the credentials back unchanged. A token without `exp` removes the
// gauge (not known); a failure leaves it as it was, so an expired token keeps showing its
// past expiry. The token itself never reaches the metrics. Thread-safe as the wrapped source.
#pragma once

#include <memory>

#include "metrics/metrics.h"
#include "slurm/jwt_source.h"

namespace tpslurm::slurm {

class MeteredTokenSource final : public TokenSource {
 public:
  MeteredTokenSource(std::unique_ptr<TokenSource> inner, metrics::Metrics& metrics)
      : m_inner(std::move(inner)), m_metrics(metrics) {}

  Result<Credentials> credentials() override;
  // A job's user's token is not the service's: the gauge follows credentials() alone.
  Result<Credentials> credentials_for(std::string_view user) override { return m_inner->credentials_for(user); }
  std::string describe() const override { return m_inner->describe(); }

 private:
  std::unique_ptr<TokenSource> m_inner;
  metrics::Metrics& m_metrics;
};

}  // namespace tpslurm::slurm
