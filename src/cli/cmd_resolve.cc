// tuneplane-slurm resolve JOB/N --absent --reason TEXT
// tuneplane-slurm resolve JOB/N --adopt <job id|SLUID>
//
// An operator's answer to a submit whose answer was lost (the attempt is submit_unknown and
// its job blocked, ARCHITECTURE.md §4 step 5). Both write with compare-and-set on the
// attempt's state, journaled with the operator (the invoking user).
//   --absent: refused, with the time left, until TUNEPLANE_RESOLVE_QUIET_PERIOD has passed
//             since the intent and a complete search (every source answered) ran after that;
//             then the attempt is abandoned and the job gets a new attempt (or ends
//             cancelled if a cancel was requested). The daemon keeps watching the resolved
//             tag and cancels a job that appears later with it.
//   --adopt:  reads the job from Slurm and adopts it only when it carries the attempt's tag
//             (two of three marks) on every component; the daemon then identifies and
//             releases it.
#include <CLI/CLI.hpp>

#include "cli/attempt_ref.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/exit_codes.h"
#include "cli/slurm_connection.h"
#include "journal/journal.h"
#include "reconcile/attempt_tag.h"

namespace tpslurm::cli {
namespace {

struct ResolveOptions {
  std::string attempt;
  bool absent = false;
  std::string adopt;
  std::string reason;
};

std::string duration_words(std::chrono::seconds s) {
  const auto minutes = std::chrono::duration_cast<std::chrono::minutes>(s).count();
  if (minutes >= 1) return std::to_string(minutes) + " min " + std::to_string(s.count() % 60) + " s";
  return std::to_string(s.count()) + " s";
}

// Why --absent must wait, or empty when it may go.
std::string absent_refusal(const journal::AttemptRecord& a, const model::Settings& settings, TimePoint now) {
  const auto intent = parse_utc(a.intent_at);
  if (!intent) return "the attempt has no intent time; it cannot have been searched for";
  const TimePoint quiet_end = *intent + settings.resolve_quiet_period;
  if (now < quiet_end) {
    return "the quiet period (TUNEPLANE_RESOLVE_QUIET_PERIOD) has not passed: " +
           duration_words(std::chrono::duration_cast<std::chrono::seconds>(quiet_end - now)) + " left (until " +
           format_utc(quiet_end) + ")";
  }
  const auto complete = parse_utc(a.complete_search_at);
  if (!complete || *complete < quiet_end) {
    return "no complete search (every source answering) has run since the quiet period ended at " +
           format_utc(quiet_end) + "; `serve` runs one at its next cycle (last search: " +
           (a.searched_at.empty() ? std::string("none") : a.searched_at) + ", see `audit --blocked`)";
  }
  return {};
}

int resolve_absent(Context& context, journal::Journal& journal, const journal::AttemptRecord& a,
                   const ResolveOptions& options) {
  if (options.reason.empty()) return context.fail(invalid_argument("resolve --absent needs --reason TEXT"));
  if (std::string why = absent_refusal(a, *context.settings(), context.clock().now()); !why.empty()) {
    return context.fail(
        transient("refused to resolve " + a.job_id + "/" + std::to_string(a.number) + " as absent: " + why));
  }
  if (Status done = journal.resolve_absent(a.key(), operator_name(), options.reason); !done.ok()) {
    return context.fail(done.error());
  }
  context.out() << a.job_id << "/" << a.number << ": resolved absent; the tag stays watched\n";
  return kExitOk;
}

int resolve_adopt(Context& context, journal::Journal& journal, const journal::AttemptRecord& a,
                  const ResolveOptions& options) {
  const model::Settings& settings = *context.settings();
  auto slurm = connect_slurm(settings, context.clock());
  if (!slurm.ok()) return context.fail(slurm.error());
  slurm::JobRef ref;
  if (!options.adopt.empty() && options.adopt[0] == 's') {
    ref.sluid = options.adopt;
  } else {
    try {
      ref.job_id = static_cast<std::uint32_t>(std::stoul(options.adopt));
    } catch (const std::exception&) {
      return context.fail(invalid_argument("--adopt \"" + options.adopt + "\" is neither a job id nor a SLUID"));
    }
  }
  slurm::JobsResult read = slurm->client->get_job(ref);
  if (!read.ok()) return context.fail(transient("cannot read Slurm job " + options.adopt + ": " + read.message));
  const model::JobTag tag = reconcile::attempt_tag(settings, a);
  std::uint32_t leader = 0;
  std::string sluid;
  for (const auto& record : read.jobs) {
    if (!tag.identifies(record.tag())) {
      return context.fail(invalid_argument("Slurm job " + std::to_string(record.job_id) +
                                           " does not carry the tag of " + a.job_id + "/" + std::to_string(a.number) +
                                           " (name \"" + record.name + "\", expected \"" + tag.name + "\")"));
    }
    const std::uint32_t id = record.het_job_id.value_or(record.job_id);
    if (leader == 0) leader = id;
    if (record.job_id == id) sluid = record.sluid;
  }
  if (leader == 0) return context.fail(not_found("Slurm returned no record for " + options.adopt));
  journal::AttemptChanges changes;
  changes.slurm_job_id = leader;
  if (!sluid.empty()) changes.sluid = sluid;
  changes.found_by = "operator";
  changes.receipt = "{\"found_by\":\"operator\",\"job_id\":" + std::to_string(leader) + "}";
  const std::string words = "adopted by " + operator_name() + (options.reason.empty() ? "" : ": " + options.reason);
  Status done = journal.transition(a.key(), model::AttemptState::submit_unknown, model::AttemptState::submitted,
                                   changes, {{"reason", words}, {"operator", operator_name()}});
  if (!done.ok()) return context.fail(done.error());
  context.out() << a.job_id << "/" << a.number << ": adopted Slurm job " << leader << "\n";
  return kExitOk;
}

int run_resolve(Context& context, const ResolveOptions& options) {
  if (context.settings() == nullptr) return kExitBadInput;
  if (options.absent == !options.adopt.empty()) {
    return context.fail(invalid_argument("resolve needs exactly one of --absent or --adopt <job id|SLUID>"));
  }
  int exit_code = kExitOk;
  auto journal = context.open_journal(Context::Access::write, exit_code);
  if (!journal) return exit_code;
  auto attempt = find_attempt(*journal, options.attempt);
  if (!attempt.ok()) return context.fail(attempt.error());
  if (attempt->state != model::AttemptState::submit_unknown) {
    return context.fail(invalid_argument(attempt->job_id + "/" + std::to_string(attempt->number) + " is " +
                                         std::string(model::to_string(attempt->state)) +
                                         ": only a submit whose answer was lost (submit_unknown) is resolved"));
  }
  return options.absent ? resolve_absent(context, *journal, *attempt, options)
                        : resolve_adopt(context, *journal, *attempt, options);
}

}  // namespace

void add_resolve_command(CLI::App& app, Context& context, int& exit_code) {
  auto options = std::make_shared<ResolveOptions>();
  CLI::App* command =
      app.add_subcommand("resolve", "Resolve a submit whose answer was lost: --absent, or --adopt a job you found");
  add_version_flag(*command);
  command->add_option("ATTEMPT", options->attempt, "JOB/N (or JOB: its newest attempt)")->required();
  command->add_flag("--absent", options->absent, "Slurm never created it: allow a new attempt");
  command->add_option("--adopt", options->adopt, "The Slurm job id or SLUID that is this attempt's job");
  command->add_option("--reason", options->reason, "Why (journaled with your user name)");
  command->callback([&context, &exit_code, options] { exit_code = run_resolve(context, *options); });
}

}  // namespace tpslurm::cli
