// tuneplane-slurm migrate
// tuneplane-slurm journal check [--json]
// tuneplane-slurm journal backup FILE
// tuneplane-slurm journal restore FILE [--reason TEXT]
// tuneplane-slurm journal clear-safe-mode --reason TEXT
// tuneplane-slurm journal move-deployment --reason TEXT
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <boost/json.hpp>

#include "base/crash_point.h"
#include "base/file_system.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/deployment.h"
#include "cli/exit_codes.h"
#include "cli/slurm_connection.h"
#include "journal/backup.h"
#include "journal/daemon_lock.h"
#include "journal/journal.h"
#include "journal/journal_check.h"

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

// The journal file as it is, whatever its migrations: the copy taken before `migrate` is of a
// journal this binary is ahead of (the package's upgrade takes it with the new binary).
int run_backup(Context& context, const std::string& target) {
  const model::Settings* settings = context.settings();
  if (settings == nullptr) return kExitBadInput;
  if (Status copied = journal::backup_journal_file(settings->journal_path, target); !copied.ok()) {
    return context.fail(copied.error());
  }
  context.out() << "journal " << settings->journal_path << " copied to " << target << "\n";
  return kExitOk;
}

// The backup, migrated and marked `safe_mode`, in a file of its own beside the journal: the
// journal is then replaced by it in one step, so no journal behind Slurm is ever seen without
// safe mode, however the restore is interrupted.
Result<std::string> stage_restore(Context& context, const std::string& source, const std::string& words) {
  const std::string staged = context.settings()->journal_path + ".restoring";
  ::unlink(staged.c_str());
  journal::OpenOptions options;
  options.migrate_existing = true;
  {
    auto fresh = journal::Journal::open(staged, context.clock(), options);
    if (!fresh.ok()) return fresh.error();
    if (Status copied = (*fresh)->restore_from(source); !copied.ok()) return copied.error();
  }
  auto staged_journal = journal::Journal::open(staged, context.clock(), options);
  if (!staged_journal.ok()) return staged_journal.error();
  if (Status marked = (*staged_journal)->set_control("safe_mode", operator_name(), words); !marked.ok()) {
    return marked.error();
  }
  return staged;
}

// Replaces the journal by a backup. The current content is kept beside it first; the restored
// journal is marked `safe_mode`: it may be behind Slurm, so until an operator clears it every
// attempt that is prepared or later is searched by tag before anything is sent.
int run_restore(Context& context, const std::string& source, const std::string& reason) {
  const model::Settings* settings = context.settings();
  if (settings == nullptr) return kExitBadInput;
  for (const auto& result : journal::check_journal(source)) {
    if (!result.ok) {
      return context.fail(invalid_argument("journal restore: " + source + " is not a sound journal (" + result.name +
                                           ": " + result.detail + "); nothing was changed"));
    }
  }
  const std::string& path = settings->journal_path;
  if (Status made = make_directories(parent_directory(path), 0700); !made.ok()) return context.fail(made.error());
  auto lock = journal::DaemonLock::acquire(path);
  if (!lock.ok()) return context.fail(lock.error().with_context("journal restore (stop `serve` first)"));
  auto staged = stage_restore(context, source, "restored from " + source + (reason.empty() ? "" : ": " + reason));
  if (!staged.ok()) return context.fail(staged.error().with_context("journal restore: nothing was changed"));
  const std::string kept = path + ".before-restore-" + format_utc(context.clock().now());
  {
    int exit_code = kExitOk;
    auto current = context.open_journal(Context::Access::write, exit_code);
    if (!current) return exit_code;
    if (Status copied = current->backup(kept); !copied.ok()) return context.fail(copied.error());
    if (Status restored = current->restore_from(*staged); !restored.ok()) return context.fail(restored.error());
    crash_point("restore.after_copy");
  }
  for (const char* suffix : {"", "-wal", "-shm"}) ::unlink((*staged + suffix).c_str());
  context.out() << "journal " << path << " restored from " << source << " (the previous content is in " << kept
                << "); safe mode is on: attempts are searched by tag before anything is sent, until "
                   "`tuneplane-slurm journal clear-safe-mode --reason TEXT`\n";
  return kExitOk;
}

int run_clear_safe_mode(Context& context, const std::string& reason) {
  int exit_code = kExitOk;
  auto journal = context.open_journal(Context::Access::write, exit_code);
  if (!journal) return exit_code;
  auto before = journal->control("safe_mode");
  if (!before.ok()) return context.fail(before.error());
  if (Status cleared = journal->clear_control("safe_mode", operator_name(), reason); !cleared.ok()) {
    return context.fail(cleared.error());
  }
  context.out() << (before->has_value() ? "safe mode cleared" : "safe mode was not on; nothing changed") << "\n";
  return kExitOk;
}

int run_move_deployment(Context& context, const std::string& reason) {
  const model::Settings* settings = context.settings();
  if (settings == nullptr) return kExitBadInput;
  auto lock = journal::DaemonLock::acquire(settings->journal_path);
  if (!lock.ok()) return context.fail(lock.error().with_context("journal move-deployment (stop `serve` first)"));
  int exit_code = kExitOk;
  auto journal = context.open_journal(Context::Access::write, exit_code);
  if (!journal) return exit_code;
  auto moved = move_deployment(*journal, *settings, operator_name(), reason);
  if (!moved.ok()) return context.fail(moved.error());
  context.out() << *moved << "\n";
  return kExitOk;
}

}  // namespace

void add_migrate_command(CLI::App& app, Context& context, int& exit_code) {
  CLI::App* command = app.add_subcommand("migrate", "Create the journal, or apply this binary's pending migrations");
  add_version_flag(*command);
  command->callback([&context, &exit_code] { exit_code = run_migrate(context); });
}

void add_journal_command(CLI::App& app, Context& context, int& exit_code) {
  CLI::App* journal = app.add_subcommand("journal", "Inspect, back up or restore the journal");
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

  auto source = std::make_shared<std::string>();
  auto reason = std::make_shared<std::string>();
  CLI::App* restore = journal->add_subcommand("restore", "Replace the journal by a backup and turn safe mode on");
  add_version_flag(*restore);
  restore->add_option("FILE", *source, "A backup written by `journal backup`")->required();
  restore->add_option("--reason", *reason, "Why (journaled with your user name)");
  restore->callback([&context, &exit_code, source, reason] { exit_code = run_restore(context, *source, *reason); });

  auto move_reason = std::make_shared<std::string>();
  CLI::App* move = journal->add_subcommand(
      "move-deployment", "Record this configuration's instance and storage root as the journal's (serve stopped)");
  add_version_flag(*move);
  move->add_option("--reason", *move_reason, "Why (journaled with your user name)")->required();
  move->callback([&context, &exit_code, move_reason] { exit_code = run_move_deployment(context, *move_reason); });

  auto clear_reason = std::make_shared<std::string>();
  CLI::App* clear = journal->add_subcommand("clear-safe-mode", "End safe mode after a restore, once Slurm was checked");
  add_version_flag(*clear);
  clear->add_option("--reason", *clear_reason, "Why (journaled with your user name)")->required();
  clear->callback([&context, &exit_code, clear_reason] { exit_code = run_clear_safe_mode(context, *clear_reason); });
}

}  // namespace tpslurm::cli
