#include "journal/migrator.h"

#include <SQLiteCpp/Statement.h>
#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace tpslurm::journal {
namespace {

const ManualClock kClock(from_unix_seconds(1796040374));

std::vector<Migration> list(std::initializer_list<SqlFile> files) {
  auto loaded = load_migrations(std::vector<SqlFile>(files));
  EXPECT_TRUE(loaded.ok()) << (loaded.ok() ? "" : loaded.error().message());
  return loaded.ok() ? *loaded : std::vector<Migration>{};
}

const SqlFile kOne{"0001_people", "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL);"};
const SqlFile kTwo{"0002_pets",
                   "CREATE TABLE pets (id INTEGER PRIMARY KEY, owner INTEGER NOT NULL REFERENCES people (id));"};

TEST(MigratorTest, AppliesAFreshDatabaseInOrderAndRecordsHashes) {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  auto status = migrate(db, list({kOne, kTwo}), kClock);
  ASSERT_TRUE(status.ok()) << status.error().message();
  EXPECT_EQ(status->applied, 2);
  EXPECT_TRUE(db.tableExists("pets"));
  SQLite::Statement rows(db, "SELECT number, name, sha256, applied_at FROM schema_migrations ORDER BY number");
  ASSERT_TRUE(rows.executeStep());
  EXPECT_EQ(rows.getColumn(1).getString(), "0001_people");
  EXPECT_EQ(rows.getColumn(2).getString().size(), 64u);
  EXPECT_EQ(rows.getColumn(3).getString(), "2026-11-30T12:06:14Z");
}

TEST(MigratorTest, UpgradesFromAnOlderVersion) {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  ASSERT_TRUE(migrate(db, list({kOne}), kClock).ok());
  db.exec("INSERT INTO people (name) VALUES ('ada')");
  auto status = migrate(db, list({kOne, kTwo}), kClock);
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->applied, 2);
  EXPECT_EQ(db.execAndGet("SELECT name FROM people").getString(), "ada");
  EXPECT_TRUE(migrate(db, list({kOne, kTwo}), kClock).ok());  // nothing pending: a no-op
}

TEST(MigratorTest, RefusesATamperedAppliedMigration) {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  ASSERT_TRUE(migrate(db, list({kOne}), kClock).ok());
  const SqlFile changed{"0001_people", "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT);"};
  auto status = migrate(db, list({changed}), kClock);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().kind(), ErrorKind::corrupt);
  EXPECT_NE(status.error().message().find("migration 0001_people was applied as 0001_people with sha256 "),
            std::string::npos);
  EXPECT_NE(status.error().message().find(
                ": an applied migration must never change; add a new migration instead"),
            std::string::npos);
}

TEST(MigratorTest, RefusesADatabaseNewerThanTheBinary) {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  ASSERT_TRUE(migrate(db, list({kOne, kTwo}), kClock).ok());
  auto status = migrate(db, list({kOne}), kClock);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message(),
            "the journal was migrated to 0002_pets by a newer tuneplane-slurm; this binary knows migrations up to 1: "
            "run the newer binary (never an older one against a newer journal)");
}

TEST(MigratorTest, RefusesAGapInWhatWasApplied) {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  ASSERT_TRUE(migrate(db, list({kOne, kTwo}), kClock).ok());
  db.exec("DELETE FROM schema_migrations WHERE number = 1");
  auto status = check_migrations(db, list({kOne, kTwo}));
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message(),
            "the journal records migration 2 (0002_pets) but not migration 1; it was changed by hand: restore it "
            "from a backup");
}

TEST(MigratorTest, RefusesBadNamesAndGapsInTheBinary) {
  auto gap = load_migrations(std::vector<SqlFile>{kOne, {"0003_x", "SELECT 1;"}});
  ASSERT_FALSE(gap.ok());
  EXPECT_EQ(gap.error().message(),
            "migrations must be numbered 0001, 0002, ... without gaps; \"0003_x\" follows 0001_people");
  auto name = load_migrations(std::vector<SqlFile>{{"1_people", "SELECT 1;"}});
  ASSERT_FALSE(name.ok());
  EXPECT_EQ(name.error().message(), "migration \"1_people\" is not named NNNN_name.sql");
}

TEST(MigratorTest, AFailingMigrationIsRolledBackWhole) {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  ASSERT_TRUE(migrate(db, list({kOne}), kClock).ok());
  const SqlFile broken{"0002_broken", "CREATE TABLE half (x INTEGER); INSERT INTO nowhere VALUES (1);"};
  auto status = migrate(db, list({kOne, broken}), kClock);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message().find("migration 0002_broken failed and was rolled back: no such table: nowhere"),
            std::string::npos);
  EXPECT_FALSE(db.tableExists("half"));
  EXPECT_EQ(db.execAndGet("SELECT max(number) FROM schema_migrations").getInt(), 1);
}

TEST(MigratorTest, RebuildingATableWithForeignKeysWorksAndLeavesThemOn) {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db.exec("PRAGMA foreign_keys = ON");
  ASSERT_TRUE(migrate(db, list({kOne, kTwo}), kClock).ok());
  db.exec("INSERT INTO people (id, name) VALUES (1, 'ada'); INSERT INTO pets (owner) VALUES (1);");
  // The usual SQLite table rebuild: with foreign keys on, DROP TABLE people would fail.
  const SqlFile rebuild{"0003_rebuild_people",
                        "CREATE TABLE people_new (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT);"
                        "INSERT INTO people_new (id, name) SELECT id, name FROM people;"
                        "DROP TABLE people; ALTER TABLE people_new RENAME TO people;"};
  auto status = migrate(db, list({kOne, kTwo, rebuild}), kClock);
  ASSERT_TRUE(status.ok()) << status.error().message();
  EXPECT_EQ(db.execAndGet("PRAGMA foreign_keys").getInt(), 1);
  EXPECT_THROW(db.exec("INSERT INTO pets (owner) VALUES (42)"), SQLite::Exception);
}

TEST(MigratorTest, AMigrationThatBreaksForeignKeysIsRolledBack) {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  ASSERT_TRUE(migrate(db, list({kOne, kTwo}), kClock).ok());
  db.exec("INSERT INTO people (id, name) VALUES (1, 'ada'); INSERT INTO pets (owner) VALUES (1);");
  const SqlFile orphan{"0003_orphan", "DELETE FROM people;"};
  auto status = migrate(db, list({kOne, kTwo, orphan}), kClock);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message(),
            "migration 0003_orphan leaves rows in pets whose foreign key points nowhere; it was rolled back");
  EXPECT_EQ(db.execAndGet("SELECT count(*) FROM people").getInt(), 1);
  EXPECT_EQ(db.execAndGet("PRAGMA foreign_keys").getInt(), 1);
}

}  // namespace
}  // namespace tpslurm::journal
