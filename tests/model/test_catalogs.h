// Catalogs and a valid LaunchRequest for model tests, and a way to edit the request's JSON.
#pragma once

#include <boost/json.hpp>
#include <string>

#include "model/launch_request.h"

namespace tpslurm::model::testing {

extern const char* const kGpuSeriesJson;
extern const char* const kRuntimeRegistryJson;
extern const char* const kValidRequestJson;  // two GPU pools, srun launcher, every optional field

const GpuSeriesCatalog& gpu_series();
const RuntimeRegistry& runtimes();
ValidationContext context(RuntimeProfile profile = RuntimeProfile::enroot_pyxis);

// The valid request as a mutable JSON value.
boost::json::value valid_request();
// A CPU-only request (custom/custom, one pool, 0 GPUs).
boost::json::value cpu_only_request();

Result<LaunchRequest, Problems> parse(const boost::json::value& request,
                                      RuntimeProfile profile = RuntimeProfile::enroot_pyxis);
// The problems' text (one per line) of a request expected to be refused; "" if it was accepted.
std::string refusal(const boost::json::value& request, RuntimeProfile profile = RuntimeProfile::enroot_pyxis);

}  // namespace tpslurm::model::testing
