// ApiService: the platform API as `serve` runs it — its own journal connection (so the
// daemon sees the API's commits through data_version as it sees the CLI's, and picks them up
// within its 200 ms tick), the queue that journals new jobs together (submit_queue.h), the token store, the readiness
// checks, the routes and the server, started together and stopped together (the destructor). `slurm` (may be null) is
// the client resolve's adopt and /readyz ask; it must outlive the service. Requires settings.api_tokens_file; start()
// fails, naming the cause, when the journal cannot be opened, the tokens file is refused or holds a bad line, or the
// address cannot be listened on.
#pragma once

#include <memory>

#include "api/routes.h"
#include "api/server.h"
#include "api/token_store.h"
#include "base/clock.h"
#include "journal/journal.h"
#include "metrics/metrics.h"
#include "model/catalogs.h"
#include "model/settings.h"

namespace tpslurm::api {

class ApiService {
 public:
  // `settings`, `catalogs`, `clock` and `metrics` (when given: GET /metrics answers, and the
  // server counts its connections there) must outlive the service, and so must what `through`
  // calls: how the new jobs are committed (submit_queue.h; none: on the queue's own journal
  // connection).
  static Result<std::unique_ptr<ApiService>> start(const model::Settings& settings, const model::Catalogs& catalogs,
                                                   const Clock& clock, ServerLimits limits = {},
                                                   slurm::SlurmClient* slurm = nullptr,
                                                   metrics::Metrics* metrics = nullptr,
                                                   operations::CommitThrough through = {});
  ~ApiService();

  const Server& server() const { return *m_server; }

 private:
  ApiService() = default;

  std::unique_ptr<journal::Journal> m_journal;
  std::unique_ptr<TokenStore> m_tokens;
  std::unique_ptr<SubmitQueue> m_submits;
  std::unique_ptr<Readiness> m_readiness;
  std::unique_ptr<UserMapFile> m_users;  // per-user mode
  std::unique_ptr<Routes> m_routes;
  std::unique_ptr<Server> m_server;  // last: stopped first
};

}  // namespace tpslurm::api
