// burst_bench's site: the temporary directory of one sweep, and the body serve would submit.
#include "base/uuid.h"
#include "bench_site.h"
#include "burst_bench.h"
#include "cli/inputs.h"
#include "config/settings_loader.h"
#include "render/render_request.h"
#include "slurm/dialect.h"
#include "storage/layout.h"

namespace tpslurm::bench::burst {

Site make_site(const std::string& url, const Target& target) {
  Site site{make_bench_site("burst_bench"), url, target};
  write_file(site.dir / "slurm.jwt", kSlurmJwt + "\n");
  write_file(site.dir / "api-tokens", "bench " + kApiToken + " read,submit\n");
  return site;
}

std::string held_submit_body(const Site& site) {
  config::Environment env;
  for (const auto& entry : site.environment()) {
    const auto equals = entry.find('=');
    env.emplace(entry.substr(0, equals), entry.substr(equals + 1));
  }
  auto loaded = config::load_settings(env, std::nullopt, config::current_process_options());
  if (!loaded.ok()) die("settings: " + loaded.error().to_text());
  const model::Settings& settings = loaded->settings;
  auto catalogs = cli::load_catalogs(settings, "burst_bench");
  if (!catalogs.ok()) die(catalogs.error().to_text());
  const render::RenderCatalogs render_catalogs{catalogs->gpu_series, catalogs->runtimes};
  const std::string job_id = "burst-0000";
  auto rendered = render::render_request(
      bench_request(job_id), render_catalogs, settings,
      storage::attempt_inputs(settings, job_id, 1, new_uuid(), settings.storage_root + "/credential"));
  if (!rendered.ok()) die("render: " + rendered.error().to_text());
  model::SubmitDescription description = rendered->attempt.submit;
  description.hold = true;
  auto body = slurm::make_dialect(site.target.dialect)->encode_submit(description);
  if (!body.ok()) die("encode: " + body.error().message());
  return *body;
}

}  // namespace tpslurm::bench::burst
