// tuneplane-slurm cleanup JOB[/N] [--force --reason TEXT]
//
// Without --force: shows where the attempt's cleanup stands and what --force would do. With
// --force: moves a stuck cleanup step one step on (operations/forced_cleanup.h), journaled with
// the operator and the reason. Only ended attempts.
#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/context.h"
#include "cli/exit_codes.h"
#include "cli/slurm_connection.h"
#include "operations/forced_cleanup.h"
#include "operations/resolution.h"

namespace tpslurm::cli {
namespace {

using model::CleanupStep;

struct CleanupOptions {
  std::string attempt;
  bool force = false;
  std::string reason;
};

int run_cleanup(Context& context, const CleanupOptions& o) {
  int exit_code = kExitOk;
  auto journal = context.open_journal(o.force ? Context::Access::write : Context::Access::read, exit_code);
  if (!journal) return exit_code;
  auto attempt = operations::find_attempt(*journal, o.attempt);
  if (!attempt.ok()) return context.fail(attempt.error());
  const journal::AttemptRecord& a = *attempt;
  const std::string which = operations::attempt_name(a);
  if (a.cleanup == CleanupStep::closed && model::is_final(a.state)) {
    context.out() << which << ": cleanup closed; nothing to force\n";
    return kExitOk;
  }
  if (Status forceable = operations::check_forceable(a); !forceable.ok()) return context.fail(forceable.error());
  const operations::ForcedStep next = operations::forced_step(a.cleanup);
  if (!o.force) {
    context.out() << which << ": cleanup " << model::to_string(a.cleanup) << " since " << a.cleanup_at
                  << (a.slurm_state.empty() ? "" : ", Slurm last showed " + a.slurm_state) << "\n"
                  << "--force --reason TEXT would " << next.what << " (-> " << model::to_string(next.to) << ")\n";
    return kExitOk;
  }
  if (o.reason.empty()) return context.fail(invalid_argument("--force needs --reason TEXT: it is journaled"));
  auto forced = operations::force_cleanup(*journal, a, operator_name(), o.reason);
  if (!forced.ok()) return context.fail(forced.error());
  context.out() << which << ": cleanup forced " << model::to_string(a.cleanup) << " -> " << model::to_string(forced->to)
                << "; the daemon takes the next steps\n";
  return kExitOk;
}

}  // namespace

void add_cleanup_command(CLI::App& app, Context& context, int& exit_code) {
  auto options = std::make_shared<CleanupOptions>();
  CLI::App* command =
      app.add_subcommand("cleanup", "Show an ended attempt's cleanup, or force a stuck step (journaled)");
  add_version_flag(*command);
  command->add_option("ATTEMPT", options->attempt, "JOB/N (or JOB: its newest attempt)")->required();
  command->add_flag("--force", options->force, "Move the stuck step one step on");
  command->add_option("--reason", options->reason, "Why (journaled; needed with --force)");
  command->callback([&context, &exit_code, options] { exit_code = run_cleanup(context, *options); });
}

}  // namespace tpslurm::cli
