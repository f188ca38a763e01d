#include "slurm/metered_token_source.h"

namespace tpslurm::slurm {

Result<Credentials> MeteredTokenSource::credentials() {
  Result<Credentials> credentials = m_inner->credentials();
  if (credentials.ok()) m_metrics.set_token_expiry(credentials->expires_at);
  return credentials;
}

}  // namespace tpslurm::slurm
