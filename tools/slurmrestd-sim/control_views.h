// The control API's JSON views of the simulator's state: a job as GET /sim/jobs/{id} shows
// it, the same job in brief as GET /sim/archive lists it, the timing settings, and one fault rule.
#pragma once

#include <boost/json/object.hpp>

#include <cstdint>

#include "faults.h"
#include "job.h"
#include "options.h"

namespace tpslurm::sim::control {

boost::json::object job_summary(const JobRecord& job);
// id, name, comment, working directory, standard output, state, hold, start time, in_controller.
boost::json::object job_brief(const JobRecord& job);
boost::json::object timing_json(const Timing& t, std::int64_t min_job_age_s);
boost::json::object rule_json(const FaultRule& r, std::int64_t now_ms);

}  // namespace tpslurm::sim::control
