// SlurmConnection: the real Slurm client the settings describe — libcurl transport, token
// source (file or minted), the request budget and the REST client over them — built in one
// place for every command that talks to Slurm (serve and its API, resolve --adopt). Owns all
// four; lives as long as the command. Given metrics (serve), the client's calls go through a
// MeteredTransport and its tokens through a MeteredTokenSource (slurm/metered_*.h).
#pragma once

#include <memory>

#include "base/clock.h"
#include "base/result.h"
#include "metrics/metrics.h"
#include "model/settings.h"
#include "slurm/curl_transport.h"
#include "slurm/jwt_source.h"
#include "slurm/metered_transport.h"
#include "slurm/request_budget.h"
#include "slurm/rest_client.h"

namespace tpslurm::cli {

struct SlurmConnection {
  std::unique_ptr<slurm::CurlTransport> transport;
  std::unique_ptr<slurm::MeteredTransport> metered;  // around `transport` when metrics are given
  std::unique_ptr<slurm::TokenSource> tokens;
  std::unique_ptr<slurm::RequestBudget> budget;
  std::unique_ptr<slurm::RestClient> client;
};

// `limited`: a client whose calls keep to the request budget (the call rate and the back-off,
// slurm/request_budget.h), as the daemon's do; `none`: the platform API's, with no budget to run out.
enum class Budget { limited, none };

// `metrics`, when given, must outlive the connection; `on_mint` is told of each token minted
// from the cluster's key (cli/mint_journal.h journals them).
Result<SlurmConnection> connect_slurm(const model::Settings& settings, const Clock& clock,
                                      metrics::Metrics* metrics = nullptr, Budget budget = Budget::limited,
                                      slurm::MintingTokenSource::MintListener on_mint = {});

// The invoking user's name (for the journal: who paused, resolved, restored), or "uid N".
std::string operator_name();

}  // namespace tpslurm::cli
