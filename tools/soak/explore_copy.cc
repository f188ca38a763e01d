#include "explore_copy.h"

#include "slurm/curl_transport.h"
#include "slurm/jwt_source.h"
#include "slurm/rest_client.h"

namespace tpslurm::soak {

Result<std::uint32_t> submit_held_copy(const std::string& slurm_url, const std::string& key_file,
                                       const model::JobTag& tag, const std::string& user) {
  static const SystemClock clock;
  slurm::MintingTokenSource tokens(user, key_file, std::chrono::hours(1), clock);
  slurm::CurlTransportOptions options;
  options.url = slurm_url;
  options.connect_timeout = std::chrono::seconds(2);
  options.total_timeout = std::chrono::seconds(10);
  auto transport = slurm::CurlTransport::create(options);
  if (!transport.ok()) return transport.error();
  auto client = slurm::RestClient::create(**transport, tokens, "v0.0.45");
  if (!client.ok()) return client.error();
  model::SubmitDescription copy;
  copy.tag = tag;
  copy.script = "#!/bin/bash\ntrue\n";
  copy.environment = {{"PATH", "/usr/bin:/bin"}};
  copy.hold = true;
  copy.time_limit_minutes = 10;
  copy.components = {model::SubmitComponent{"cpu", "", 1, 1, 1, 100, ""}};
  const slurm::SubmitResult answer = (*client)->submit(copy);
  if (!answer.ok() || !answer.job_id) return permanent("the copy was not created: " + answer.message);
  return *answer.job_id;
}

}  // namespace tpslurm::soak
