// render_request(): the `render` command's whole pipeline short of writing files: parse and
// validate the LaunchRequest JSON (the same checks and messages as `validate`), look up its
// runtime, then render_attempt(). Bad requests come back as the validator's Problems; nothing
// here touches the filesystem. Pure; thread-safe.
#pragma once

#include <string_view>

#include "base/result.h"
#include "model/gpu_series.h"
#include "model/launch_request.h"
#include "model/problems.h"
#include "model/runtime_registry.h"
#include "model/settings.h"
#include "render/renderer.h"

namespace tpslurm::render {

struct RenderCatalogs {
  const model::GpuSeriesCatalog& gpu_series;
  const model::RuntimeRegistry& runtimes;
};

struct RenderedRequest {
  model::LaunchRequest request;
  RenderedAttempt attempt;
};

// The request as parsed and validated for the settings' runtime profile.
Result<model::LaunchRequest, model::Problems> parse_request(std::string_view json, const RenderCatalogs& catalogs,
                                                            const model::Settings& settings);

Result<RenderedAttempt, model::Problems> render_parsed(const model::LaunchRequest& request,
                                                       const RenderCatalogs& catalogs, const model::Settings& settings,
                                                       const AttemptInputs& inputs);

Result<RenderedRequest, model::Problems> render_request(std::string_view json, const RenderCatalogs& catalogs,
                                                        const model::Settings& settings, const AttemptInputs& inputs);

}  // namespace tpslurm::render
