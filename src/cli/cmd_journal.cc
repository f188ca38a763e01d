// tuneplane-slurm migrate
// tuneplane-slurm journal check [--json]
// tuneplane-slurm journal backup FILE
#include <CLI/CLI.hpp>
#include <boost/json.hpp>

#include "cli/commands.h"
#include "cli/context.h"
#include "cli/exit_codes.h"
#include "journal/journal.h"
#include "journal/journal_check.h"
#include "journal/daemon_lock.h"
#include "base/file_system.h"

namespace tpslurm::cli {
namespace {

int run_migrate(Context& context) {
  const model::Settings* settings = context.settings();
  if (settings == nullptr) return kExitBadInput;
  // A running daemon holds the journal's lock; migrating under it would change its schema
  // mid-flight.
  const std::string& path = settings->journal_path;
  if (Status made = make_directories(parent_directory(path), 0700); !made.ok()) return context.fail(made.error());
  auto lock = journal::DaemonLock::acquire(path);
  if (!lock.ok()) return context.fail(lock.error().with_context("migrate"));
  journal::OpenOptions options;
  options.migrate_existing = true;
  auto opened = journal::Journal::open(settings->journal_path, context.clock(), options);
  if (!opened.ok()) return context.fail(opened.error());
  context.out() << "journal " << settings->journal_path << ": up to date\n";
  return kExitOk;
}

int run_check(Context& context, bool json) {
  const model::Settings* settings = context.settings();
  if (settings == nullptr) return kExitBadInput;
  const auto results = journal::check_journal(settings->journal_path);
  bool all_ok = true;
  boost::json::array list;
  for (const auto& result : results) {
    all_ok = all_ok && result.ok;
    if (json) {
      list.push_back({{"check", result.name}, {"ok", result.ok}, {"detail", result.detail}});
    } else {
      context.out() << (result.ok ? "ok    " : "FAIL  ") << result.name << ": " << result.detail << "\n";
    }
  }
  if (json) {
    context.out() << boost::json::serialize(
                         boost::json::object{{"journal", settings->journal_path}, {"ok", all_ok}, {"checks", list}})
                  << "\n";
  }
  return all_ok ? kExitOk : kExitFailure;
}

int run_backup(Context& context, const std::string& target) {
  int exit_code = kExitOk;
  auto journal = context.open_journal(Context::Access::read, exit_code);
  if (!journal) return exit_code;
  if (Status copied = journal->backup(target); !copied.ok()) return context.fail(copied.error());
  context.out() << "journal " << journal->path() << " copied to " << target << "\n";
  return kExitOk;
}

}  // namespace

void add_migrate_command(CLI::App& app, Context& context, int& exit_code) {
  CLI::App* command = app.add_subcommand("migrate", "Create the journal, or apply this binary's pending migrations");
  add_version_flag(*command);
  command->callback([&context, &exit_code] { exit_code = run_migrate(context); });
}

void add_journal_command(CLI::App& app, Context& context, int& exit_code) {
  CLI::App* journal = app.add_subcommand("journal", "Inspect or back up the journal");
  add_version_flag(*journal);
  journal->require_subcommand(1);

  auto json = std::make_shared<bool>(false);
  CLI::App* check = journal->add_subcommand("check", "Diagnose the journal file without changing it");
  add_version_flag(*check);
  check->add_flag("--json", *json, "Print as JSON");
  check->callback([&context, &exit_code, json] { exit_code = run_check(context, *json); });

  auto target = std::make_shared<std::string>();
  CLI::App* backup = journal->add_subcommand("backup", "Write an online, consistent copy (SQLite's backup API)");
  add_version_flag(*backup);
  backup->add_option("FILE", *target, "Where to write the copy (must not exist)")->required();
  backup->callback([&context, &exit_code, target] { exit_code = run_backup(context, *target); });
}

}  // namespace tpslurm::cli
