// tuneplane-slurm audit JOB | --blocked | --cleanup | --orphans | --mints [--user U] [--json]
//
// --blocked lists submits whose answer was lost with their age and the last search's report
// per source; --orphans the Slurm jobs named like this instance's that no attempt holds;
// --mints the Slurm tokens minted from the cluster's key (the newest kMintsShown, of one Unix
// user with --user), never a token.
#include <CLI/CLI.hpp>
#include <boost/json.hpp>
#include <functional>

#include "base/duration.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/exit_codes.h"
#include "cli/owner_words.h"
#include "cli/table.h"
#include "journal/journal.h"
#include "operations/job_views.h"
#include "operations/record_json.h"

namespace tpslurm::cli {
namespace {

struct AuditOptions {
  std::string job;
  bool blocked = false;
  bool cleanup = false;
  bool orphans = false;
  bool mints = false;
  std::string user;
  bool json = false;
};

constexpr int kMintsShown = 1000;

template <class Entry>
int print(Context& context, const Result<std::vector<Entry>>& entries, bool json, Table table,
          const std::function<std::vector<std::string>(const Entry&)>& row, const std::string& empty) {
  if (!entries.ok()) return context.fail(entries.error());
  if (json) {
    boost::json::array list;
    for (const auto& entry : *entries) list.push_back(operations::to_json(entry));
    context.out() << boost::json::serialize(list) << "\n";
    return kExitOk;
  }
  for (const auto& entry : *entries) table.add(row(entry));
  if (table.empty()) {
    context.out() << empty << "\n";
  } else {
    table.print(context.out());
  }
  return kExitOk;
}

std::string optional_text(const std::optional<std::int64_t>& value) { return value ? std::to_string(*value) : ""; }

// Who asked for what an event records, when someone did: "by" (a job's creation through the
// API, a desire) or "operator" (a resolution).
std::string actor(const std::string& detail) {
  boost::system::error_code error;
  const auto value = boost::json::parse(detail, error);
  if (error || !value.is_object()) return "";
  for (const char* key : {"by", "operator"}) {
    if (const auto* found = value.as_object().if_contains(key); found != nullptr && found->is_string()) {
      return std::string(found->as_string());
    }
  }
  return "";
}

std::string age(const std::string& since, TimePoint now) {
  auto start = parse_utc(since);
  if (!start) return "";
  const auto minutes = std::chrono::duration_cast<std::chrono::minutes>(now - *start).count();
  return minutes < 120 ? std::to_string(minutes) + " min" : std::to_string(minutes / 60) + " h";
}

// "2026-12-01T10:31:00Z (31m after the intent)": a search's time with how long after the
// intent `serve` measured it to be.
std::string search_words(const std::string& at, const std::optional<std::int64_t>& elapsed_s) {
  if (at.empty() || !elapsed_s) return at;
  return at + " (" + format_duration(std::chrono::seconds(*elapsed_s)) + " after the intent)";
}

// "slurmctld job list: ok (12 records); slurmdbd job search: uncertain (...)".
std::string report_words(const std::string& report) {
  boost::system::error_code error;
  auto value = boost::json::parse(report, error);
  if (error || !value.is_object() || !value.as_object().contains("sources")) return "";
  std::string out;
  for (const auto& source : value.at("sources").as_array()) {
    if (!out.empty()) out += "; ";
    out += std::string(source.at("source").as_string()) + ": " + std::string(source.at("outcome").as_string());
    const auto& message = source.at("message").as_string();
    if (!message.empty()) out += " (" + std::string(message) + ")";
  }
  return out;
}

int run_audit(Context& context, const AuditOptions& options) {
  if (static_cast<int>(!options.job.empty()) + static_cast<int>(options.blocked) + static_cast<int>(options.cleanup) +
          static_cast<int>(options.orphans) + static_cast<int>(options.mints) !=
      1) {
    return context.fail(invalid_argument("audit takes exactly one of: JOB, --blocked, --cleanup, --orphans, --mints"));
  }
  if (!options.user.empty() && !options.mints) return context.fail(invalid_argument("--user goes with --mints"));
  int exit_code = kExitOk;
  auto journal = context.open_journal(Context::Access::read, exit_code);
  if (!journal) return exit_code;
  if (options.blocked) {
    return print<journal::BlockedEntry>(
        context, journal->blocked(), options.json,
        Table({"JOB", "ATTEMPT", "SUBMIT TOKEN", "INTENT", "AGE", "LAST SEARCH", "LAST COMPLETE", "SEARCH REPORT",
               "REASON"}),
        [now = context.clock().now()](const journal::BlockedEntry& e) {
          return std::vector<std::string>{e.job_id,
                                          std::to_string(e.attempt),
                                          e.submit_token,
                                          e.intent_at,
                                          age(e.intent_at, now),
                                          search_words(e.last_search_at, e.last_search_elapsed_s),
                                          search_words(e.last_complete_search_at, e.last_complete_search_elapsed_s),
                                          report_words(e.search_report),
                                          e.reason};
        },
        "no blocked submissions");
  }
  if (options.orphans) {
    return print<journal::OrphanEntry>(
        context, journal->orphans(), options.json,
        Table({"SLURM JOB", "SLUID", "NAME", "STATE", "WORKDIR", "FIRST SEEN", "LAST SEEN"}),
        [](const journal::OrphanEntry& e) {
          return std::vector<std::string>{
              std::to_string(e.slurm_job_id), e.sluid, e.name, e.slurm_state, e.working_dir, e.first_seen, e.last_seen};
        },
        "no orphans");
  }
  if (options.mints) {
    return print<journal::MintRecord>(
        context, journal->mints(options.user, kMintsShown), options.json,
        Table({"AT", "USER", "EXPIRES", "PURPOSE"}),
        [](const journal::MintRecord& m) { return std::vector<std::string>{m.at, m.user, m.expires_at, m.purpose}; },
        "no tokens minted");
  }
  if (options.cleanup) {
    return print<journal::CleanupEntry>(
        context, journal->cleanup_backlog(), options.json,
        Table({"JOB", "ATTEMPT", "STATE", "CLEANUP", "SLURM JOB", "SLURM STATE", "SINCE"}),
        [](const journal::CleanupEntry& e) {
          return std::vector<std::string>{e.job_id,  std::to_string(e.attempt),     e.state,
                                          e.cleanup, optional_text(e.slurm_job_id), e.slurm_state,
                                          e.since};
        },
        "no cleanup backlog");
  }
  if (options.json) {
    auto timeline = operations::job_timeline(*journal, options.job);
    if (!timeline.ok()) return context.fail(timeline.error());
    if (!timeline->has_value()) return context.fail(not_found("no job " + options.job + " in " + journal->path()));
    context.out() << operations::json_text(**timeline);
    return kExitOk;
  }
  auto job = journal->job(options.job);
  if (!job.ok()) return context.fail(job.error());
  if (!job->has_value()) return context.fail(not_found("no job " + options.job + " in " + journal->path()));
  context.out() << "job " << options.job << ", request sha256 " << (*job)->request_sha256
                << owner_words(**job) << "\n\n";
  return print<journal::TimelineEntry>(
      context, journal->timeline(options.job), options.json,
      Table({"SEQ", "AT", "ATTEMPT", "EVENT", "FROM", "TO", "SLURM JOB", "SLUID", "BY", "REASON"}),
      [](const journal::TimelineEntry& e) {
        return std::vector<std::string>{std::to_string(e.seq),
                                        e.at,
                                        e.attempt ? std::to_string(*e.attempt) : "",
                                        e.kind,
                                        e.from_state,
                                        e.to_state,
                                        optional_text(e.slurm_job_id),
                                        e.sluid,
                                        actor(e.detail),
                                        e.reason};
      },
      "no events");
}

}  // namespace

void add_audit_command(CLI::App& app, Context& context, int& exit_code) {
  auto options = std::make_shared<AuditOptions>();
  CLI::App* command =
      app.add_subcommand("audit",
                         "A job's whole history from the journal, the blocked submissions, or the cleanup "
                         "backlog");
  add_version_flag(*command);
  command->add_option("JOB", options->job, "A job id: its timeline");
  command->add_flag("--blocked", options->blocked, "Submissions whose response was lost, blocking their job");
  command->add_flag("--cleanup", options->cleanup, "Ended attempts whose cleanup has not finished");
  command->add_flag("--orphans", options->orphans, "Slurm jobs named like this instance's that no attempt holds");
  command->add_flag("--mints", options->mints,
                    "Slurm tokens minted from the cluster's key: when, for whom, until when (never the token)");
  command->add_option("--user", options->user, "With --mints: one Unix user's");
  command->add_flag("--json", options->json, "Print as JSON");
  command->callback([&context, &exit_code, options] { exit_code = run_audit(context, *options); });
}

}  // namespace tpslurm::cli
