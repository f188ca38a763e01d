// The control API's endpoints, one handler each (the route table is in control_api.cc).
//
// A ControlCall is what one request gives its handler: the simulator's parts it may change,
// the request with its target and its body (already parsed; {} when empty). A handler checks
// its own body and answers as control_api.h says: 400 naming the field and the fix, 404 for
// an unknown job or rule, 409 for a step Slurm would not take. Server thread only.
#pragma once

#include <boost/json/object.hpp>

#include "control_api.h"
#include "http_types.h"
#include "url.h"

namespace tpslurm::sim::control {

struct ControlCall {
  ControlParts& sim;
  const HttpRequest& request;
  const Target& target;
  const boost::json::object& body;
};

using Handler = HttpReply (*)(const ControlCall& call);

// The simulator itself: health, clock, timing, stats (control_sim_routes.cc).
HttpReply health(const ControlCall& call);
HttpReply clock_get(const ControlCall& call);
HttpReply clock_advance(const ControlCall& call);
HttpReply clock_set(const ControlCall& call);
HttpReply timing_get(const ControlCall& call);
HttpReply timing_set(const ControlCall& call);
HttpReply stats_get(const ControlCall& call);
HttpReply stats_reset(const ControlCall& call);

// One job, by the id in segment 2 (control_job_routes.cc).
HttpReply job_get(const ControlCall& call);
HttpReply job_state(const ControlCall& call);
// POST /sim/jobs/{master}_{task}/state: one task of an array. A task still pending in the
// meta record is first split off into a record of its own (as slurmctld does on start).
HttpReply job_task_state(const ControlCall& call);
HttpReply job_requeue(const ControlCall& call);
// 404 for /sim/jobs/{id}/... that no route matched: the job is unknown, or the endpoint is.
HttpReply job_unknown_endpoint(const ControlCall& call);

// Many jobs at once (control_jobs_routes.cc).
HttpReply jobs_bulk(const ControlCall& call);
HttpReply jobs_advance(const ControlCall& call);
HttpReply ids_reset(const ControlCall& call);
// Every record ever created, oldest first, in brief (slurmdbd's archive: purged and forgotten
// records included, and records whose id an id reset gave out again).
HttpReply archive(const ControlCall& call);

// Fault rules (control_fault_routes.cc).
HttpReply faults_get(const ControlCall& call);
HttpReply faults_clear(const ControlCall& call);
HttpReply fault_remove(const ControlCall& call);
HttpReply fault_add(const ControlCall& call);
HttpReply faults_random_set(const ControlCall& call);
HttpReply faults_random_clear(const ControlCall& call);

}  // namespace tpslurm::sim::control
