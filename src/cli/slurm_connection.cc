#include "cli/slurm_connection.h"

#include <pwd.h>
#include <unistd.h>

#include "slurm/metered_token_source.h"

namespace tpslurm::cli {

Result<SlurmConnection> connect_slurm(const model::Settings& settings, const Clock& clock, metrics::Metrics* metrics,
                                      Budget budget, slurm::MintingTokenSource::MintListener on_mint) {
  SlurmConnection c;
  auto transport = slurm::CurlTransport::create(slurm::transport_options(settings));
  if (!transport.ok()) return transport.error();
  c.transport = std::move(*transport);
  auto tokens = slurm::make_token_source(settings, clock, {}, std::move(on_mint));
  if (!tokens.ok()) return tokens.error();
  c.tokens = std::move(*tokens);
  slurm::Transport* used = c.transport.get();
  if (metrics != nullptr) {
    c.metered = std::make_unique<slurm::MeteredTransport>(*c.transport, *metrics);
    used = c.metered.get();
    c.tokens = std::make_unique<slurm::MeteredTokenSource>(std::move(c.tokens), *metrics);
  }
  slurm::BudgetLimits limits;
  limits.calls_per_second = settings.request_rate;
  limits.floor_per_second = settings.request_rate_floor;
  limits.slow_answer = settings.slow_answer;
  limits.slow_factor = settings.slow_factor;
  limits.initial_backoff = settings.backoff_initial;
  limits.max_backoff = settings.backoff_max;
  if (budget == Budget::limited) c.budget = std::make_unique<slurm::RequestBudget>(clock, limits);
  slurm::RestClientOptions options;
  options.clock = &clock;
  options.budget = c.budget.get();
  options.request_timeout = settings.request_timeout;
  options.bulk.max_ids_per_call = settings.bulk_max_ids;
  options.bulk.max_target_bytes = settings.bulk_max_url_bytes;
  auto client = slurm::RestClient::create(*used, *c.tokens, settings.rest_api_version, options);
  if (!client.ok()) return client.error();
  c.client = std::move(*client);
  return c;
}

std::string operator_name() {
  const uid_t uid = ::getuid();
  if (const passwd* entry = ::getpwuid(uid); entry != nullptr && entry->pw_name != nullptr) return entry->pw_name;
  return "uid " + std::to_string(uid);
}

}  // namespace tpslurm::cli
