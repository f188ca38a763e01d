// tuneplane-slurm cleanup JOB[/N] [--force --reason TEXT]
//
// Without --force: shows where the attempt's cleanup stands and what --force would do. With
// --force: moves a stuck cleanup step one step on, journaled with the operator and the reason
// (docs/architecture.md §5) — epilog_pending (Slurm still shows the job COMPLETING) or none ->
// staging_pending, staging_pending -> sealing (credentials/ and scratch/ are removed here
// first; if that fails the step is still forced and the event says what was left), sealing ->
// closed (logs left unsealed). The daemon takes the steps after it. Only ended attempts.
#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/context.h"
#include "cli/exit_codes.h"
#include "cli/slurm_connection.h"
#include "operations/resolution.h"
#include "storage/attempt_tree.h"

namespace tpslurm::cli {
namespace {

using model::CleanupStep;

struct CleanupOptions {
  std::string attempt;
  bool force = false;
  std::string reason;
};

struct Forced {
  CleanupStep to;
  std::string what;
};

Forced forced_step(CleanupStep from) {
  switch (from) {
    case CleanupStep::none:
    case CleanupStep::epilog_pending:
      return {CleanupStep::staging_pending, "stop waiting for Slurm to release the job's resources"};
    case CleanupStep::staging_pending: return {CleanupStep::sealing, "remove credentials/ and scratch/ and go on"};
    case CleanupStep::sealing: return {CleanupStep::closed, "close without sealing the logs"};
    case CleanupStep::closed: break;
  }
  return {CleanupStep::closed, ""};
}

int run_cleanup(Context& context, const CleanupOptions& o) {
  int exit_code = kExitOk;
  auto journal = context.open_journal(o.force ? Context::Access::write : Context::Access::read, exit_code);
  if (!journal) return exit_code;
  auto attempt = operations::find_attempt(*journal, o.attempt);
  if (!attempt.ok()) return context.fail(attempt.error());
  const journal::AttemptRecord& a = *attempt;
  const std::string which = a.job_id + "/" + std::to_string(a.number);
  if (!model::is_final(a.state)) {
    return context.fail(invalid_argument("attempt " + which + " is " + std::string(model::to_string(a.state)) +
                                         "; cleanup starts when it has ended (cancel it first)"));
  }
  if (a.cleanup == CleanupStep::closed) {
    context.out() << which << ": cleanup closed; nothing to force\n";
    return kExitOk;
  }
  const Forced next = forced_step(a.cleanup);
  if (!o.force) {
    context.out() << which << ": cleanup " << model::to_string(a.cleanup) << " since " << a.cleanup_at
                  << (a.slurm_state.empty() ? "" : ", Slurm last showed " + a.slurm_state) << "\n"
                  << "--force --reason TEXT would " << next.what << " (-> " << model::to_string(next.to) << ")\n";
    return kExitOk;
  }
  if (o.reason.empty()) return context.fail(invalid_argument("--force needs --reason TEXT: it is journaled"));
  journal::EventDetail detail{{"reason", o.reason + " (forced by " + operator_name() + ")"}, {"forced", next.what}};
  if (a.cleanup == CleanupStep::staging_pending) {
    if (Status removed = storage::remove_staging(a.attempt_dir); !removed.ok()) {
      detail.emplace_back("left", removed.error().message());
    }
  }
  Status moved = journal->advance_cleanup(a.key(), a.cleanup, next.to, detail);
  if (!moved.ok()) return context.fail(moved.error());
  context.out() << which << ": cleanup forced " << model::to_string(a.cleanup) << " -> " << model::to_string(next.to)
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
