// Inputs for render tests: the two catalogs, settings, attempt identities and the request
// shapes the golden files pin, built as LaunchRequest values (and as JSON for the path
// through the validator).
#pragma once

#include <string>

#include "model/gpu_series.h"
#include "model/launch_request.h"
#include "model/runtime_registry.h"
#include "model/settings.h"
#include "render/render_request.h"
#include "render/renderer.h"

namespace tpslurm::render::testing {

inline constexpr const char* kSubmitToken = "0b6f8c1e-4d2a-4c1f-9a7e-3f1d2c4b5a69";
inline constexpr const char* kStorageRoot = "/srv/tuneplane";
inline constexpr const char* kClusterStorageRoot = "/lustre/tuneplane";

extern const char* const kGpuSeriesJson;
extern const char* const kRuntimeRegistryJson;

const model::GpuSeriesCatalog& gpu_series();
const model::RuntimeRegistry& runtimes();
RenderCatalogs catalogs();

model::Settings settings(model::RuntimeProfile profile = model::RuntimeProfile::enroot_pyxis);
// The attempt directory under `settings`' storage root (and its cluster-side twin).
AttemptInputs inputs(const model::Settings& settings, const std::string& job_id, int attempt = 1);

// Request shapes.
model::LaunchRequest one_gpu_pool(model::Launcher launcher);  // 2 nodes of h100 x 8
model::LaunchRequest two_pool_hetjob();                       // ray: h100 trainer + a100 rollout
model::LaunchRequest three_pool_hetjob();                     // srun: h100, a100, h100
model::LaunchRequest cpu_only();                              // custom/custom, 1 node, 0 GPUs
model::LaunchRequest with_checkpoint_grace();                 // one pool, grace and site settings

// The documented example request as JSON (two GPU pools, every optional field).
std::string example_request_json();

Result<RenderedAttempt, model::Problems> render(const model::LaunchRequest& request, const model::Settings& settings,
                                                RenderTrace* trace = nullptr);

}  // namespace tpslurm::render::testing
