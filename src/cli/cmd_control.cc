// tuneplane-slurm pause --reason TEXT | resume [--reason TEXT]
//
// Journaled with the operator (the invoking user) and the reason. While paused the daemon
// submits nothing new (no attempt is created or sent) and still follows, identifies,
// releases and cancels everything already submitted. Both are idempotent.
#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/context.h"
#include "cli/exit_codes.h"
#include "cli/slurm_connection.h"
#include "journal/journal.h"
#include "operations/desires.h"

namespace tpslurm::cli {
namespace {

int run_control(Context& context, bool pause, const std::string& reason) {
  int exit_code = kExitOk;
  auto journal = context.open_journal(Context::Access::write, exit_code);
  if (!journal) return exit_code;
  auto before = operations::set_paused(*journal, pause, operator_name(), reason);
  if (!before.ok()) return context.fail(before.error());
  if (pause) {
    context.out() << (before->has_value() ? "already paused since " + (*before)->set_at + " by " + (*before)->set_by
                                          : std::string("paused: nothing new is submitted; submitted jobs are "
                                                        "still followed"))
                  << "\n";
  } else {
    context.out() << (before->has_value() ? "resumed: submitting again" : "not paused; nothing changed") << "\n";
  }
  return kExitOk;
}

}  // namespace

void add_control_commands(CLI::App& app, Context& context, int& exit_code) {
  auto reason = std::make_shared<std::string>();
  CLI::App* pause = app.add_subcommand("pause", "Stop submitting new jobs (submitted ones are still followed)");
  add_version_flag(*pause);
  pause->add_option("--reason", *reason, "Why (journaled with your user name)")->required();
  pause->callback([&context, &exit_code, reason] { exit_code = run_control(context, true, *reason); });

  auto resume_reason = std::make_shared<std::string>("resumed");
  CLI::App* resume = app.add_subcommand("resume", "Submit again after `pause`");
  add_version_flag(*resume);
  resume->add_option("--reason", *resume_reason, "Why (journaled with your user name)");
  resume->callback([&context, &exit_code, resume_reason] { exit_code = run_control(context, false, *resume_reason); });
}

}  // namespace tpslurm::cli
