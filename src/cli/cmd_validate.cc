// tuneplane-slurm validate REQUEST.json [--json]
#include <CLI/CLI.hpp>
#include <boost/json.hpp>

#include "cli/commands.h"
#include "cli/context.h"
#include "cli/exit_codes.h"
#include "cli/inputs.h"

namespace tpslurm::cli {
namespace {

struct ValidateOptions {
  std::string request;
  bool json = false;
};

std::string summary(const model::LaunchRequest& request, const model::Settings& settings) {
  std::string pools;
  for (const auto& pool : request.pools) {
    if (!pools.empty()) pools += ", ";
    pools += pool.name + " " + std::to_string(pool.nodes) + "x";
    pools += pool.gpus_per_node > 0 ? std::to_string(pool.gpus_per_node) + " " + pool.gpu_series
                                    : std::to_string(pool.cpus) + " CPUs";
  }
  return "job " + request.job_id + ", " + std::to_string(request.pools.size()) +
         (request.pools.size() == 1 ? " pool (" : " pools (") + pools + "), runtime " + request.runtime_id + " (" +
         std::string(model::to_string(settings.runtime_profile)) + ")" +
         (request.is_cpu_only() ? ", CPU-only" : request.pools.size() > 1 ? ", heterogeneous" : "");
}

int run_validate(Context& context, const ValidateOptions& options) {
  const model::Settings* settings = context.settings();
  if (settings == nullptr) return kExitBadInput;
  auto catalogs = load_catalogs(*settings, "validate");
  if (!catalogs.ok()) return context.fail(catalogs.error());
  auto request = load_request(options.request, *catalogs, *settings);
  if (options.json) {
    boost::json::object out;
    out["valid"] = request.ok();
    boost::json::array problems;
    if (request.ok()) {
      out["job_id"] = request->job_id;
    } else {
      for (const auto& problem : request.error().list()) {
        problems.push_back({{"path", problem.path}, {"value", problem.value}, {"message", problem.message}});
      }
    }
    out["problems"] = std::move(problems);
    context.out() << boost::json::serialize(out) << "\n";
    return request.ok() ? kExitOk : kExitBadInput;
  }
  if (!request.ok()) return context.fail(request.error(), options.request);
  context.out() << options.request << ": valid: " << summary(*request, *settings) << "\n";
  return kExitOk;
}

}  // namespace

void add_validate_command(CLI::App& app, Context& context, int& exit_code) {
  auto options = std::make_shared<ValidateOptions>();
  CLI::App* command = app.add_subcommand("validate", "Check a LaunchRequest against the catalogs; list every problem");
  add_version_flag(*command);
  command->add_option("REQUEST", options->request, "LaunchRequest JSON file, or - for stdin")->required();
  command->add_flag("--json", options->json, "Print the result as JSON");
  command->callback([&context, &exit_code, options] { exit_code = run_validate(context, *options); });
}

}  // namespace tpslurm::cli
