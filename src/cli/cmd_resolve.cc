// tuneplane-slurm resolve JOB/N --absent --reason TEXT
// tuneplane-slurm resolve JOB/N --adopt <job id|SLUID>
// tuneplane-slurm resolve JOB/N --lost --reason TEXT
//
// An operator's answer to a submit whose answer was lost (--absent, --adopt) or to a job Slurm
// forgot (--lost), journaled with the invoking user; the rules (quiet period, complete search,
// the tag check, Slurm no longer holding the job) are operations/resolution.h's, shared with
// POST /v1/attempts/{id}/resolve.
#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/context.h"
#include "cli/exit_codes.h"
#include "cli/mint_journal.h"
#include "cli/slurm_connection.h"
#include "journal/journal.h"
#include "operations/resolution.h"

namespace tpslurm::cli {
namespace {

struct ResolveOptions {
  std::string attempt;
  bool absent = false;
  bool lost = false;
  std::string adopt;
  std::string reason;
};

// A refusal as the error the command fails with: the operator may try again later when it is
// a matter of time or of Slurm answering, and must change the input otherwise.
Error refusal_error(const operations::Resolution& answer) {
  switch (*answer.refused) {
    case operations::Refusal::too_early:
    case operations::Refusal::slurm_unreadable: return transient(answer.message);
    default: return invalid_argument(answer.message);
  }
}

Result<operations::Resolution> resolve(Context& context, journal::Journal& journal, const journal::AttemptRecord& a,
                                       const ResolveOptions& options) {
  const model::Settings& settings = *context.settings();
  if (options.absent) {
    return operations::resolve_absent(journal, a, settings, context.clock().now(), operator_name(), options.reason);
  }
  auto mints = MintJournal::open(settings, context.clock());
  if (!mints.ok()) return mints.error();
  auto slurm = connect_slurm(settings, context.clock(), nullptr, Budget::limited, (*mints)->listener());
  if (!slurm.ok()) return slurm.error();
  if (options.lost) {
    return operations::resolve_lost(journal, *slurm->client, a, settings, operator_name(), options.reason);
  }
  return operations::resolve_adopt(journal, *slurm->client, a, settings, options.adopt, operator_name(),
                                   options.reason);
}

int run_resolve(Context& context, const ResolveOptions& options) {
  if (context.settings() == nullptr) return kExitBadInput;
  if (int(options.absent) + int(options.lost) + int(!options.adopt.empty()) != 1) {
    return context.fail(invalid_argument("resolve needs exactly one of --absent, --adopt <job id|SLUID> or --lost"));
  }
  if ((options.absent || options.lost) && options.reason.empty()) {
    return context.fail(
        invalid_argument(std::string("resolve ") + (options.absent ? "--absent" : "--lost") + " needs --reason TEXT"));
  }
  int exit_code = kExitOk;
  auto journal = context.open_journal(Context::Access::write, exit_code);
  if (!journal) return exit_code;
  auto attempt = operations::find_attempt(*journal, options.attempt);
  if (!attempt.ok()) return context.fail(attempt.error());
  auto answer = resolve(context, *journal, *attempt, options);
  if (!answer.ok()) return context.fail(answer.error());
  if (answer->refused) return context.fail(refusal_error(*answer));
  context.out() << answer->message << "\n";
  return kExitOk;
}

}  // namespace

void add_resolve_command(CLI::App& app, Context& context, int& exit_code) {
  auto options = std::make_shared<ResolveOptions>();
  CLI::App* command =
      app.add_subcommand("resolve",
                         "Resolve a submit whose answer was lost (--absent, or --adopt a job you found), or a job "
                         "Slurm forgot (--lost)");
  add_version_flag(*command);
  command->add_option("ATTEMPT", options->attempt, "JOB/N (or JOB: its newest attempt)")->required();
  command->add_flag("--absent", options->absent, "Slurm never created it: allow a new attempt");
  command->add_option("--adopt", options->adopt, "The Slurm job id or SLUID that is this attempt's job");
  command->add_flag("--lost", options->lost, "Slurm no longer has the job and cannot say how it ended: end it lost");
  command->add_option("--reason", options->reason, "Why (journaled with your user name)");
  command->callback([&context, &exit_code, options] { exit_code = run_resolve(context, *options); });
}

}  // namespace tpslurm::cli
