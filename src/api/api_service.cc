#include "api/api_service.h"

#include <unistd.h>

#include "storage/secret_key.h"

namespace tpslurm::api {

Result<std::unique_ptr<ApiService>> ApiService::start(const model::Settings& settings, const model::Catalogs& catalogs,
                                                      const Clock& clock, ServerLimits limits,
                                                      slurm::SlurmClient* slurm, metrics::Metrics* metrics,
                                                      operations::CommitThrough through) {
  if (settings.api_tokens_file.empty()) {
    return invalid_argument("TUNEPLANE_API_TOKENS_FILE is not set; the API needs its tokens");
  }
  auto address = model::parse_listen_address(settings.api_listen);
  if (!address) return invalid_argument("TUNEPLANE_API_LISTEN " + settings.api_listen + ": not an address");
  std::unique_ptr<ApiService> service(new ApiService());
  auto journal = journal::Journal::open(settings.journal_path, clock);
  if (!journal.ok()) return journal.error();
  service->m_journal = std::move(*journal);
  auto tokens = TokenStore::open(settings.api_tokens_file, ::geteuid());
  if (!tokens.ok()) return tokens.error();
  service->m_tokens = std::move(*tokens);
  // The local key signs each new job's credential: read once, not for every POST.
  auto key = storage::load_state_key(settings.state_dir);
  if (!key.ok()) return key.error();
  auto submits = SubmitQueue::start(settings, clock, *key, std::move(through));
  if (!submits.ok()) return submits.error();
  service->m_submits = std::move(*submits);
  service->m_readiness = std::make_unique<Readiness>(*service->m_journal, settings.journal_path, slurm);
  if (settings.identity_mode == model::IdentityMode::per_user && catalogs.users) {
    service->m_users = std::make_unique<UserMapFile>(settings.user_map_file, catalogs.users, settings.first_user_id,
                                                     ::geteuid(), clock);
  }
  service->m_routes = std::make_unique<Routes>(RouteContext{*service->m_journal, settings, catalogs, *service->m_tokens,
                                                            clock, slurm, service->m_readiness.get(), metrics,
                                                            std::move(*key), service->m_submits.get(),
                                                            service->m_users.get()});
  Routes* routes = service->m_routes.get();
  std::optional<ServerTls> tls;
  if (!settings.api_tls_cert.empty()) tls = ServerTls{settings.api_tls_cert, settings.api_tls_key};
  auto server = Server::start(
      *address, limits, [routes](const ApiRequest& request) { return routes->handle(request); }, settings.journal_path,
      tls, metrics, [routes](std::string_view authorization) { return routes->may_submit(authorization); });
  if (!server.ok()) return server.error();
  service->m_server = std::move(*server);
  return service;
}

ApiService::~ApiService() {
  // The queue first, while the server can still carry its answers; a POST after it is refused.
  if (m_submits) m_submits->stop();
  if (m_server) m_server->stop();
}

}  // namespace tpslurm::api
