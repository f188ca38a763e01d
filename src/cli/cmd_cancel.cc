// tuneplane-slurm cancel JOB [--reason TEXT] [--grace SECONDS]
//
// Journals the desire to cancel (compare-and-set on the job's version); the daemon applies
// it: a job not yet sent is never sent; a sent job is cancelled in Slurm (by the leader's
// SLUID where the server's release allows, else by id after the identity check); a job whose
// submission is unconfirmed is cancelled as soon as it is found. With --grace a running job
// first gets its checkpoint signal (SIGUSR1) and is killed that many seconds later; a pending
// job has nothing to checkpoint and is killed at once. Idempotent.
#include <CLI/CLI.hpp>
#include <optional>

#include "cli/commands.h"
#include "cli/context.h"
#include "cli/exit_codes.h"
#include "cli/slurm_connection.h"
#include "journal/journal.h"
#include "operations/desires.h"

namespace tpslurm::cli {
namespace {

int run_cancel(Context& context, const std::string& job_id, const std::string& reason, std::optional<int> grace) {
  int exit_code = kExitOk;
  auto journal = context.open_journal(Context::Access::write, exit_code);
  if (!journal) return exit_code;
  auto cancelled = operations::request_cancel(*journal, job_id, operator_name(), reason, grace);
  if (!cancelled.ok()) return context.fail(cancelled.error());
  switch (cancelled->outcome) {
    case operations::CancelOutcome::already_final:
      context.out() << job_id << ": already " << model::to_string(cancelled->phase) << "; nothing to cancel\n";
      break;
    case operations::CancelOutcome::already_requested: context.out() << job_id << ": cancel already requested\n"; break;
    case operations::CancelOutcome::requested:
      context.out() << job_id << ": cancel requested (" << model::to_string(cancelled->phase) << ")"
                    << (grace ? ", SIGUSR1 first and the kill " + std::to_string(*grace) + " s later" : std::string())
                    << "; the daemon applies it\n";
      break;
  }
  return kExitOk;
}

}  // namespace

void add_cancel_command(CLI::App& app, Context& context, int& exit_code) {
  auto job = std::make_shared<std::string>();
  auto reason = std::make_shared<std::string>();
  auto grace = std::make_shared<std::optional<int>>();
  CLI::App* command = app.add_subcommand("cancel", "Cancel a job (journaled; the daemon applies it)");
  add_version_flag(*command);
  command->add_option("JOB", *job, "The platform job id")->required();
  command->add_option("--reason", *reason, "Why (journaled)");
  command
      ->add_option("--grace", *grace,
                   "Seconds between the checkpoint signal (SIGUSR1) and the kill, for a running job (0 to 86400)")
      ->check(CLI::Range(0, 86400));
  command->callback(
      [&context, &exit_code, job, reason, grace] { exit_code = run_cancel(context, *job, *reason, *grace); });
}

}  // namespace tpslurm::cli
