#include "render/render_request.h"

namespace tpslurm::render {

Result<model::LaunchRequest, model::Problems> parse_request(std::string_view json, const RenderCatalogs& catalogs,
                                                            const model::Settings& settings) {
  const model::ValidationContext context{catalogs.gpu_series, catalogs.runtimes, settings.runtime_profile};
  return model::parse_launch_request(json, context);
}

Result<RenderedAttempt, model::Problems> render_parsed(const model::LaunchRequest& request,
                                                       const RenderCatalogs& catalogs, const model::Settings& settings,
                                                       const AttemptInputs& inputs) {
  const model::Runtime* runtime = catalogs.runtimes.find(request.runtime_id);
  if (runtime == nullptr) {
    model::Problems problems;
    problems.add("spec.framework.runtime_id", model::quote_value(request.runtime_id), "not in the runtime registry");
    return problems;
  }
  return render_attempt(request, *runtime, catalogs.gpu_series, settings, inputs);
}

Result<RenderedRequest, model::Problems> render_request(std::string_view json, const RenderCatalogs& catalogs,
                                                        const model::Settings& settings, const AttemptInputs& inputs) {
  auto parsed = parse_request(json, catalogs, settings);
  if (!parsed.ok()) return parsed.error();
  auto rendered = render_parsed(*parsed, catalogs, settings, inputs);
  if (!rendered.ok()) return rendered.error();
  return RenderedRequest{std::move(*parsed), std::move(*rendered)};
}

}  // namespace tpslurm::render
