#include "journal/migrator.h"

#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include <charconv>
#include <map>

#include "base/digest.h"

namespace tpslurm::journal {
namespace {

constexpr const char* kCreateTable =
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    " number INTEGER PRIMARY KEY, name TEXT NOT NULL, sha256 TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT";

struct Applied {
  std::string name;
  std::string sha256;
};

Result<std::map<int, Applied>> read_applied(SQLite::Database& db) {
  std::map<int, Applied> applied;
  if (!db.tableExists("schema_migrations")) return applied;
  SQLite::Statement query(db, "SELECT number, name, sha256 FROM schema_migrations ORDER BY number");
  while (query.executeStep()) {
    applied[query.getColumn(0).getInt()] = {query.getColumn(1).getString(), query.getColumn(2).getString()};
  }
  return applied;
}

}  // namespace

Result<std::vector<Migration>> load_migrations(std::span<const SqlFile> files) {
  std::vector<Migration> migrations;
  for (const SqlFile& file : files) {
    Migration migration;
    const auto [end, ec] = std::from_chars(file.name.data(), file.name.data() + file.name.size(), migration.number);
    const std::size_t digits = static_cast<std::size_t>(end - file.name.data());
    if (ec != std::errc() || digits != 4 || file.name.size() < 6 || file.name[4] != '_') {
      return corrupt("migration \"" + std::string(file.name) + "\" is not named NNNN_name.sql");
    }
    if (migration.number != static_cast<int>(migrations.size()) + 1) {
      return corrupt("migrations must be numbered 0001, 0002, ... without gaps; \"" + std::string(file.name) +
                     "\" follows " + (migrations.empty() ? std::string("nothing") : migrations.back().name));
    }
    migration.name = std::string(file.name);
    migration.sql = std::string(file.sql);
    migration.sha256 = sha256_hex(file.sql);
    migrations.push_back(std::move(migration));
  }
  return migrations;
}

Result<MigrationStatus> check_migrations(SQLite::Database& db, const std::vector<Migration>& migrations) {
  try {
    auto applied = read_applied(db);
    if (!applied.ok()) return applied.error();
    MigrationStatus status;
    status.known = static_cast<int>(migrations.size());
    int expected = 1;
    for (const auto& [number, row] : *applied) {
      if (number != expected) {
        return corrupt("the journal records migration " + std::to_string(number) + " (" + row.name +
                       ") but not migration " + std::to_string(expected) +
                       "; it was changed by hand: restore it from a backup");
      }
      if (number > status.known) {
        return corrupt("the journal was migrated to " + row.name +
                       " by a newer tuneplane-slurm; this binary knows "
                       "migrations up to " +
                       std::to_string(status.known) +
                       ": run the newer binary (never an older one against a newer journal)");
      }
      const Migration& ours = migrations[static_cast<std::size_t>(number - 1)];
      if (row.name != ours.name || row.sha256 != ours.sha256) {
        return corrupt("migration " + ours.name + " was applied as " + row.name + " with sha256 " + row.sha256 +
                       " but this binary's text has sha256 " + ours.sha256 +
                       ": an applied migration must never change; add a new migration instead");
      }
      status.applied = number;
      ++expected;
    }
    return status;
  } catch (const SQLite::Exception& e) {
    return corrupt(std::string("reading schema_migrations: ") + e.what());
  }
}

Result<MigrationStatus> migrate(SQLite::Database& db, const std::vector<Migration>& migrations, const Clock& clock) {
  auto status = check_migrations(db, migrations);
  if (!status.ok()) return status;
  for (std::size_t i = static_cast<std::size_t>(status->applied); i < migrations.size(); ++i) {
    const Migration& migration = migrations[i];
    try {
      db.exec("PRAGMA foreign_keys = OFF");
      // Whatever happens below, the connection leaves with foreign keys enforced again.
      struct ForeignKeysBackOn {
        SQLite::Database& db;
        ~ForeignKeysBackOn() {
          try {
            db.exec("PRAGMA foreign_keys = ON");
          } catch (const SQLite::Exception&) {
          }
        }
      } back_on{db};
      {
        SQLite::Transaction transaction(db, SQLite::TransactionBehavior::IMMEDIATE);
        db.exec(kCreateTable);
        // Another process (a `submit` beside a starting `serve`) may have applied it since the
        // check above: the write lock is held now, so this answer stays true.
        SQLite::Statement done(db, "SELECT 1 FROM schema_migrations WHERE number = ?");
        done.bind(1, migration.number);
        if (done.executeStep()) {
          transaction.commit();
          status->applied = migration.number;
          continue;
        }
        db.exec(migration.sql);
        SQLite::Statement check(db, "PRAGMA foreign_key_check");
        if (check.executeStep()) {
          return corrupt("migration " + migration.name + " leaves rows in " + check.getColumn(0).getString() +
                         " whose foreign key points nowhere; it was rolled back");
        }
        SQLite::Statement record(
            db, "INSERT INTO schema_migrations (number, name, sha256, applied_at) VALUES (?, ?, ?, ?)");
        record.bind(1, migration.number);
        record.bind(2, migration.name);
        record.bind(3, migration.sha256);
        record.bind(4, format_utc(clock.now()));
        record.exec();
        transaction.commit();
      }
      status->applied = migration.number;
    } catch (const SQLite::Exception& e) {
      return corrupt("migration " + migration.name + " failed and was rolled back: " + e.what());
    }
  }
  return status;
}

}  // namespace tpslurm::journal
