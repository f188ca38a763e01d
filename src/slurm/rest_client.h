// RestClient: SlurmClient (slurm_client.h) over a Transport, a TokenSource and the dialects.
//
// Owns nothing it is given: the transport and the token source must outlive it. The dialect
// and the last server release seen are guarded by a mutex; calls may run on several threads.
// Headers X-SLURM-USER-NAME and X-SLURM-USER-TOKEN go with every request (22.05 needs both);
// a token that cannot be had makes the call `auth` without sending anything.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "slurm/dialect.h"
#include "slurm/jwt_source.h"
#include "slurm/slurm_client.h"
#include "slurm/transport.h"

namespace tpslurm::slurm {

class RestClient final : public SlurmClient {
 public:
  // `api_version` is "auto" or one of supported_dialects(); invalid_argument otherwise.
  static Result<std::unique_ptr<RestClient>> create(Transport& transport, TokenSource& tokens,
                                                    std::string api_version);

  ServerResult detect() override;
  CallResult preflight() override;
  SubmitResult submit(const model::SubmitDescription& description) override;
  JobsResult get_job(const JobRef& job) override;
  JobsResult jobs_changed_since(std::optional<TimePoint> since) override;
  CancelResult cancel(const JobRef& job, std::string_view signal = {}) override;
  PingResult ping() override;
  PartitionsResult partitions() override;

 private:
  RestClient(Transport& transport, TokenSource& tokens, std::string api_version);

  struct Sent {
    HttpExchange exchange;
    std::string label;  // "GET /slurm/v0.0.45/job/12"
    std::optional<Error> credentials_error;
  };
  Sent send(HttpMethod method, std::string target, std::string body, Reuse reuse);
  // The dialect to use, detecting it first if needed; empty result carries the failure.
  std::shared_ptr<const Dialect> dialect(CallResult& failure);
  void remember_release(const std::string& release);
  std::optional<std::string> job_id_text(const JobRef& job, CallResult& failure);
  IdPolicy policy(std::string_view dialect);

  Transport& m_transport;
  TokenSource& m_tokens;
  const std::string m_api_version;
  std::mutex m_mutex;
  std::shared_ptr<const Dialect> m_dialect;
  std::optional<SlurmRelease> m_release;
};

}  // namespace tpslurm::slurm
