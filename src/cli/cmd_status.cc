// tuneplane-slurm status [JOB] [--json]
// tuneplane-slurm status --sweep ID [--json]
#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <boost/json.hpp>

#include "base/duration.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/exit_codes.h"
#include "cli/owner_words.h"
#include "cli/sweep_commands.h"
#include "cli/table.h"
#include "journal/components.h"
#include "journal/journal.h"
#include "model/pending_reason.h"
#include "model/usage.h"
#include "operations/job_views.h"
#include "operations/record_json.h"

namespace tpslurm::cli {
namespace {

struct StatusOptions {
  std::string job;
  std::string sweep;
  bool json = false;
};

std::string number_text(const std::optional<std::uint32_t>& value) { return value ? std::to_string(*value) : ""; }

// What `serve` last found of the cluster's accounting (slurmdbd behind slurmrestd).
std::string accounting_words(journal::Journal& journal) {
  auto value = journal.meta("accounting");
  auto at = journal.meta("accounting_checked_at");
  if (!value.ok() || !value->has_value()) return "not known yet (serve finds out at start)";
  const std::string when = at.ok() && at->has_value() ? " (found at " + **at + ")" : "";
  if (**value == "present") return "present: slurmdbd answers through slurmrestd" + when;
  return "absent: slurmrestd serves no slurmdbd endpoints" + when +
         "; a job slurmctld purged is known only from its attempt's evidence";
}

// Which Slurm `serve` found at its last start and the REST version it chose.
std::string slurm_words(journal::Journal& journal) {
  auto meta = [&journal](const char* key) {
    auto value = journal.meta(key);
    return value.ok() && value->has_value() ? **value : std::string();
  };
  const std::string version = meta("rest_version");
  if (version.empty()) return "not known yet (serve finds out at start)";
  const std::string release = meta("slurm_release");
  return "release " + (release.empty() ? std::string("not named") : release) + ", REST " + version + " (setting " +
         meta("rest_version_setting") + "; found at " + meta("slurm_checked_at") + ")";
}

int show_all(Context& context, journal::Journal& journal, bool json) {
  auto jobs = journal.jobs();
  if (!jobs.ok()) return context.fail(jobs.error());
  boost::json::array rows;
  Table table({"JOB", "USER", "PHASE", "DESIRE", "ATTEMPT", "STATE", "SLURM JOB", "CLEANUP", "HELD", "UPDATED"});
  for (const auto& job : *jobs) {
    auto attempts = journal.attempts(job.job_id);
    if (!attempts.ok()) return context.fail(attempts.error());
    if (json) {
      rows.push_back(operations::job_row(job, *attempts));
      continue;
    }
    const bool held = operations::resources_held(*attempts);
    const journal::AttemptRecord* current = attempts->empty() ? nullptr : &attempts->back();
    table.add({job.job_id, job.platform_user, std::string(model::to_string(job.phase)), std::string(model::to_string(job.desire)),
               current ? std::to_string(current->number) + "/" + std::to_string(job.max_attempts) : "",
               current ? std::string(model::to_string(current->state)) : "",
               current ? number_text(current->slurm_job_id) : "",
               current ? std::string(model::to_string(current->cleanup)) : "", held ? "yes" : "no", job.updated_at});
  }
  const std::string accounting = accounting_words(journal);
  const std::string slurm = slurm_words(journal);
  if (json) {
    context.out() << boost::json::serialize(
                         boost::json::object{{"jobs", std::move(rows)}, {"accounting", accounting}, {"slurm", slurm}})
                  << "\n";
    return kExitOk;
  }
  if (table.empty()) {
    context.out() << "no jobs in " << journal.path() << "\n";
  } else {
    table.print(context.out());
  }
  context.out() << "\nslurm: " << slurm << "\ncluster accounting: " << accounting << "\n";
  return kExitOk;
}

// The newest attempt's heterogeneous components (a plain job is one), as last journaled.
void show_components(Context& context, const journal::AttemptRecord& attempt) {
  const auto components = journal::parse_components(attempt.components);
  if (components.empty()) return;
  Table table({"COMPONENT", "SLURM JOB", "SLUID", "STATE", "REASON", "EXIT", "NODES", "START", "END"});
  for (const auto& c : components) {
    std::string exit = c.exit_code ? std::to_string(*c.exit_code) : "";
    if (c.exit_signal && *c.exit_signal != 0)
      exit += (exit.empty() ? "" : " ") + std::string("signal ") + std::to_string(*c.exit_signal);
    table.add({std::to_string(c.offset), std::to_string(c.job_id), c.sluid, c.state, c.reason, exit, c.nodes, c.start,
               c.end});
  }
  context.out() << "\nattempt " << attempt.number << " in Slurm:\n";
  table.print(context.out());
}

// How many attempts the cluster ended, against this daemon's budget for them.
void show_infra_failures(Context& context, const std::vector<journal::AttemptRecord>& attempts) {
  const long n = journal::infra_failures(attempts);
  if (n == 0) return;
  const model::Settings* settings = context.settings();
  context.out() << "the cluster ended " << n << (n == 1 ? " attempt" : " attempts")
                << " (preemption, node or boot failure), which the job's attempts do not pay for; retried at most "
                << (settings ? std::to_string(settings->infra_retries) : std::string("?"))
                << " times (TUNEPLANE_INFRA_RETRIES)\n";
}

// Why a pending attempt waits, in words, and when Slurm expects it to start.
void show_wait(Context& context, const journal::AttemptRecord& attempt) {
  if (attempt.state != model::AttemptState::pending) return;
  const auto components = journal::parse_components(attempt.components);
  context.out() << "\nwaiting in Slurm:\n";
  for (const auto& c : components) {
    const model::PendingExplanation wait = model::explain_pending(c.reason);
    context.out() << "  " << (components.size() > 1 ? "component " + std::to_string(c.offset) + ": " : "")
                  << wait.explanation << " (Slurm: " << (c.reason.empty() ? "no reason yet" : c.reason) << ")\n";
    if (!wait.what_to_change.empty()) context.out() << "    what you can change: " << wait.what_to_change << "\n";
  }
  const auto start = journal::expected_start(components);
  context.out() << "expected start: ";
  if (!start) {
    context.out() << "not known (Slurm's backfill scheduler has not planned it yet)\n";
    return;
  }
  const auto left = std::chrono::duration_cast<std::chrono::seconds>(*start - context.clock().now());
  context.out() << format_utc(*start)
                << (left.count() > 0 ? " (in " + format_duration(left) + ")" : " (due now, by Slurm's last estimate)")
                << "\n";
}

int show_one(Context& context, journal::Journal& journal, const std::string& job_id, bool json) {
  if (json) {
    auto view = operations::job_status(journal, job_id);
    if (!view.ok()) return context.fail(view.error());
    if (!view->has_value()) return context.fail(not_found("no job " + job_id + " in " + journal.path()));
    context.out() << operations::json_text(**view);
    return kExitOk;
  }
  auto job = journal.job(job_id);
  if (!job.ok()) return context.fail(job.error());
  if (!job->has_value()) return context.fail(not_found("no job " + job_id + " in " + journal.path()));
  auto attempts = journal.attempts(job_id);
  if (!attempts.ok()) return context.fail(attempts.error());
  const bool held = operations::resources_held(*attempts);
  const journal::JobRecord& j = **job;
  context.out() << "job " << j.job_id << owner_words(j) << ": " << model::to_string(j.phase) << " (desire "
                << model::to_string(j.desire)
                << (j.desire_reason.empty() ? "" : ": " + j.desire_reason)
                << "), resources held: " << (held ? "yes" : "no") << "\n"
                << "request sha256 " << j.request_sha256 << ", attempts " << attempts->size() << " of at most "
                << j.max_attempts << ", submitted " << j.created_at << "\n";
  show_infra_failures(context, *attempts);
  if (attempts->empty()) return kExitOk;
  context.out() << "\n";
  Table table({"ATTEMPT", "STATE", "SLURM JOB", "SLUID", "SLURM STATE", "EXIT", "CLEANUP", "REASON"});
  for (const auto& a : *attempts) {
    std::string exit = a.exit_code ? std::to_string(*a.exit_code) : "";
    if (a.exit_signal) exit += (exit.empty() ? "" : " ") + std::string("signal ") + std::to_string(*a.exit_signal);
    table.add({std::to_string(a.number), std::string(model::to_string(a.state)), number_text(a.slurm_job_id), a.sluid,
               a.slurm_state, exit, std::string(model::to_string(a.cleanup)), a.outcome_reason});
  }
  table.print(context.out());
  for (const auto& a : *attempts) {
    if (auto usage = model::parse_usage(a.usage)) {
      context.out() << "attempt " << a.number << " used: " << model::usage_words(*usage) << "\n";
    }
  }
  show_components(context, attempts->back());
  show_wait(context, attempts->back());
  auto polled = journal.meta("last_status_poll");
  const journal::AttemptRecord& last = attempts->back();
  context.out() << "\nlast change seen in Slurm: " << (last.observed_at.empty() ? "none yet" : last.observed_at)
                << "; Slurm last polled: " << (polled.ok() && polled->has_value() ? **polled : "never") << "\n";
  return kExitOk;
}

int run_status(Context& context, const StatusOptions& options) {
  const model::Settings* settings = context.settings();
  if (settings == nullptr) return kExitBadInput;
  struct stat info {};
  if (!options.job.empty() && !options.sweep.empty()) {
    return context.fail(invalid_argument("status takes a JOB or --sweep ID, not both"));
  }
  if (::stat(settings->journal_path.c_str(), &info) != 0 && options.job.empty() && options.sweep.empty()) {
    if (options.json) {
      context.out() << "{\"jobs\":[]}\n";
    } else {
      context.out() << "no jobs yet (" << settings->journal_path << " does not exist)\n";
    }
    return kExitOk;
  }
  int exit_code = kExitOk;
  auto journal = context.open_journal(Context::Access::read, exit_code);
  if (!journal) return exit_code;
  if (!options.sweep.empty()) return show_sweep_status(context, *journal, options.sweep, options.json);
  return options.job.empty() ? show_all(context, *journal, options.json)
                             : show_one(context, *journal, options.job, options.json);
}

}  // namespace

void add_status_command(CLI::App& app, Context& context, int& exit_code) {
  auto options = std::make_shared<StatusOptions>();
  CLI::App* command = app.add_subcommand("status", "Show every job, or one job and its attempts");
  add_version_flag(*command);
  command->add_option("JOB", options->job, "A job id");
  command->add_option("--sweep", options->sweep, "A sweep id: the sweep and each of its runs' phase");
  command->add_flag("--json", options->json, "Print as JSON");
  command->callback([&context, &exit_code, options] { exit_code = run_status(context, *options); });
}

}  // namespace tpslurm::cli
