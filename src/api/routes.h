// Routes: what the platform API answers, request by request.
//
//   GET  /healthz                  no token: {"status": "ok"} while the process answers
//   GET  /readyz                   journal writable, slurmrestd answering, token accepted, not
//                                  paused: 200 ready or 503, each check named (readiness.h)
//   POST /v1/jobs                  a LaunchRequest: 201 created, 200 the same body again, 409 another
//                                  body under a known job_id, 422 with every problem, 400 not JSON
//   GET  /v1/jobs?phase=&limit=&after=   a page of `status --json`'s rows in job_id order
//   GET  /v1/jobs/{id}             exactly what `status JOB --json` prints
//   GET  /v1/jobs/{id}/audit       exactly what `audit JOB --json` prints
//   GET  /v1/jobs/{id}/logs?attempt=&component=&stream=&offset=   exactly what `logs --json` prints
//   POST /v1/jobs/{id}/cancel      {"reason"?, "grace_seconds"?}, as `cancel`
//   POST /v1/pause                 {"reason"} as `pause`;  POST /v1/resume  {"reason"?} as `resume`
//   POST /v1/attempts/{JOB/N}/resolve   {"absent": true, "reason"}, {"adopt": ID|SLUID, "reason"?}
//                                  or {"lost": true, "reason"}, as `resolve` (the attempt
//                                  percent-encoded: j1%2F2)
//   POST /v1/sweeps                a sweep (model/sweep_request.h): 201 created with its job ids,
//                                  200 the same sweep again, 409, 422 with every problem, 400, 429
//                                  as for jobs; its body may be up to 16 MiB (server.h)
//   GET  /v1/sweeps/{id}           the sweep, its runs' count per phase, each run's job and phase
//   GET  /v1/events?after=&wait=&limit=   the change feed (operations/change_feed.h), a long poll
//   GET  /metrics                  Prometheus' text format (metrics/metrics.h); 404 when none are kept
//
// Everything but /healthz needs `Authorization: Bearer TOKEN` with a token of the tokens file
// (token_store.h); without one the answer is 401 and nothing is read or written. Each route
// needs one scope of the token (scopes.h): `read` for every GET, `submit` for POST /v1/jobs,
// POST /v1/sweeps and cancel, `operate` for pause, resume and resolve; a token without it gets 403 naming the
// scope, and nothing is read or written. The token's NAME is the actor the journal records. A
// known path asked with another method is 405 with `Allow` (whatever the token's scopes); an
// unknown one 404. Journal failures: 404 (no such job), 503 (busy, try again), 500. Every
// reply to a request with a valid token says so (Reply::authenticated).
// The routes write only what the CLI writes — new jobs and desires — through operations/, on
// their own journal connection, so the daemon notices them as it notices the CLI's.
//
// handle() never throws. Not thread-safe: the server calls it from its one thread.
#pragma once

#include <string>
#include <vector>

#include "api/exchange.h"
#include "api/readiness.h"
#include "api/submit_queue.h"
#include "api/token_store.h"
#include "api/user_map_file.h"
#include "base/clock.h"
#include "journal/journal.h"
#include "metrics/metrics.h"
#include "model/catalogs.h"
#include "model/settings.h"

namespace tpslurm::api {

struct RouteContext {
  journal::Journal& journal;
  const model::Settings& settings;
  const model::Catalogs& catalogs;
  TokenStore& tokens;
  const Clock& clock;
  slurm::SlurmClient* slurm = nullptr;  // none: resolve's adopt and lost answer 503
  Readiness* readiness = nullptr;       // none: /readyz answers 503
  metrics::Metrics* metrics = nullptr;  // serve's metrics; none: /metrics is 404
  std::string hmac_key;                 // the local key, read once at start; empty: POST /v1/jobs fails
  SubmitQueue* submits = nullptr;       // journals POST /v1/jobs together; none: each on the server's thread
  UserMapFile* users = nullptr;         // per-user mode: the map, read again when it changes

  // The user map requests are judged by now: per-user mode's, else null.
  std::shared_ptr<const model::JudgedUserMap> user_map() const { return users != nullptr ? users->current() : nullptr; }
};

// The routes above but /healthz (routes.cc matches each with the scope it needs).
enum class RouteName {
  readyz,
  metrics,
  pause,
  resume,
  events,
  resolve,
  list_jobs,
  submit_job,
  show_job,
  show_audit,
  show_logs,
  cancel_job,
  submit_sweep,
  show_sweep
};

class Routes {
 public:
  explicit Routes(RouteContext context) : m_context(context) {}

  Reply handle(const ApiRequest& request);
  // Whether `authorization` ("Bearer TOKEN") holds a valid token with the submit scope: the
  // server's gate for a sweep's larger body (server.h BodyGate).
  bool may_submit(std::string_view authorization);

 private:
  // `segments`: the request's path, decoded; `actor`: the token's NAME.
  Reply route(RouteName route, const std::vector<std::string>& segments, const ApiRequest& request,
              const std::string& actor);

  RouteContext m_context;
};

}  // namespace tpslurm::api
