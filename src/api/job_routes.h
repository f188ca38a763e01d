// The handlers behind routes.h, one per route; each returns the whole reply (success or the
// error shape of exchange.h). `actor` is the authenticated token's NAME. The readers are in
// read_routes.cc, the writers and the error mapping in write_routes.cc, the change feed in
// feed_routes.cc, the metrics in metrics_routes.cc.
#pragma once

#include <string>
#include <string_view>

#include "api/exchange.h"
#include "api/routes.h"

namespace tpslurm::api {

Reply submit_job(RouteContext& context, const std::string& actor, std::string_view body);
// `target`'s query: phase (a platform phase), limit (1 to 1000, default 100), after (a job id).
Reply list_jobs(RouteContext& context, std::string_view target);
Reply show_job(RouteContext& context, std::string_view job_id);
Reply show_audit(RouteContext& context, std::string_view job_id);
// `target`'s query: attempt, component, stream (stdout or stderr), offset; as `logs --json`.
Reply show_logs(RouteContext& context, std::string_view job_id, std::string_view target);
Reply cancel_job(RouteContext& context, const std::string& actor, std::string_view job_id, std::string_view body);
Reply set_paused(RouteContext& context, const std::string& actor, bool paused, std::string_view body);
// `spec`: JOB/N or JOB (its newest attempt); resolve_route.cc.
Reply resolve_attempt(RouteContext& context, const std::string& actor, std::string_view spec, std::string_view body);
// `target`'s query: after (a sequence number, default 0), wait (0 to 60 seconds, "30s" or
// "30"; default 0), limit (1 to 1000, default 100). The change feed's page at once when it has
// events or no wait was asked; otherwise a long poll that answers at the first change with
// events, or with an empty page when the wait is over (feed_routes.cc).
Reply follow_events(RouteContext& context, std::string_view target);
// The metrics with the journal's gauges read now, in Prometheus' text format; 404 without
// metrics (metrics_routes.cc).
Reply show_metrics(RouteContext& context);

// POST /v1/sweeps and GET /v1/sweeps/{id} (sweep_routes.cc).
Reply submit_sweep(RouteContext& context, const std::string& actor, std::string_view body);
Reply show_sweep(RouteContext& context, std::string_view sweep_id);

// A journal or storage failure as a reply: not_found 404, transient 503, anything else 500.
Reply error_from(const Error& error);
// 404 "no job ID".
Reply no_job(std::string_view job_id);

}  // namespace tpslurm::api
