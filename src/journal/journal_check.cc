#include "journal/journal_check.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file_system.h"
#include "journal/daemon_lock.h"
#include "journal/embedded_sql.h"
#include "journal/migrator.h"

namespace tpslurm::journal {
namespace {

using Results = std::vector<CheckResult>;

void add(Results& results, std::string name, bool ok, std::string detail) {
  results.push_back({std::move(name), ok, std::move(detail)});
}

void check_filesystem(Results& results, const std::string& path, const FilesystemProbe& probe) {
  auto network = probe(parent_directory(path));
  if (!network.ok()) {
    add(results, "filesystem", false, network.error().message());
  } else if (*network) {
    add(results, "filesystem", false, "on " + **network + ": WAL needs a local disk; move the journal to local storage");
  } else {
    add(results, "filesystem", true, "local");
  }
}

void check_integrity(Results& results, SQLite::Database& db) {
  SQLite::Statement integrity(db, "PRAGMA integrity_check");
  std::string problems;
  while (integrity.executeStep()) {
    const std::string line = integrity.getColumn(0).getString();
    if (line != "ok") problems += (problems.empty() ? "" : "; ") + line;
  }
  add(results, "integrity", problems.empty(),
      problems.empty() ? "ok" : problems + " -- restore the newest backup (`journal backup` makes them)");
  SQLite::Statement foreign(db, "PRAGMA foreign_key_check");
  const bool clean = !foreign.executeStep();
  add(results, "foreign keys", clean, clean ? "ok" : "rows in " + foreign.getColumn(0).getString() + " point nowhere");
}

void check_schema(Results& results, SQLite::Database& db) {
  SQLite::Statement mode(db, "PRAGMA journal_mode");
  const std::string value = mode.executeStep() ? mode.getColumn(0).getString() : "";
  add(results, "wal", value == "wal",
      value == "wal" ? "journal_mode=wal" : "journal_mode=" + value + "; open it once with the daemon or `migrate` to switch");
  auto migrations = load_migrations(embedded_migrations());
  if (!migrations.ok()) {
    add(results, "migrations", false, migrations.error().message());
  } else if (auto status = check_migrations(db, *migrations); !status.ok()) {
    add(results, "migrations", false, status.error().message());
  } else {
    add(results, "migrations", status->up_to_date(),
        "at " + std::to_string(status->applied) + " of " + std::to_string(status->known) +
            (status->up_to_date() ? "" : ": run `tuneplane-slurm migrate`"));
  }
  SQLite::Statement triggers(db,
                             "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name IN "
                             "('events_no_update', 'events_no_delete', 'events_no_replace')");
  const int count = triggers.executeStep() ? triggers.getColumn(0).getInt() : 0;
  add(results, "append-only events", count == 3,
      count == 3 ? "UPDATE, DELETE and REPLACE refused"
                 : "the append-only triggers are missing; someone edited the schema: restore a backup");
}

void check_write_lock(Results& results, const std::string& path) {
  try {
    SQLite::Database db(path, SQLite::OPEN_READWRITE, 1000);
    db.exec("BEGIN IMMEDIATE");
    db.exec("ROLLBACK");
    add(results, "lock", true, "no other process holds a write lock");
  } catch (const SQLite::Exception& e) {
    add(results, "lock", false,
        std::string(e.what()) + " -- another process holds the journal locked; find it with `fuser " + path + "`");
  }
}

// A daemon holding its lock is the normal state of a journal in use, not a problem.
void check_daemon_lock(Results& results, const std::string& path) {
  const auto holder = DaemonLock::holder(path);
  if (!holder.ok()) {
    add(results, "daemon lock", false, holder.error().message());
  } else if (*holder) {
    add(results, "daemon lock", true, "held by pid " + **holder + " (" + DaemonLock::path_for(path) + ")");
  } else {
    add(results, "daemon lock", true, "free: no daemon runs on this journal (" + DaemonLock::path_for(path) + ")");
  }
}

}  // namespace

std::vector<CheckResult> check_journal(const std::string& path, const FilesystemProbe& probe) {
  Results results;
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    add(results, "file", false, path + " does not exist; `tuneplane-slurm migrate` creates it");
    return results;
  }
  if (!S_ISREG(info.st_mode)) {
    add(results, "file", false, path + " is not a regular file");
    return results;
  }
  const bool writable = ::access(path.c_str(), W_OK) == 0 && ::access(parent_directory(path).c_str(), W_OK) == 0;
  add(results, "file", writable,
      writable ? path + " (" + std::to_string(info.st_size) + " bytes)"
               : path + " or its directory is read-only for this user; the daemon needs to write both");
  check_filesystem(results, path, probe);
  try {
    SQLite::Database db(path, SQLite::OPEN_READONLY, 1000);
    check_integrity(results, db);
    check_schema(results, db);
  } catch (const SQLite::Exception& e) {
    add(results, "sqlite", false, std::string(e.what()) + " -- the file is damaged or not a tuneplane-slurm journal");
    return results;
  }
  if (writable) check_write_lock(results, path);
  check_daemon_lock(results, path);
  return results;
}

}  // namespace tpslurm::journal
