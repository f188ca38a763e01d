// schema/schema.sql is the schema the migrations produce; the audit views are defined by
// schema/audit.sql; nothing in the journal's code or SQL replaces rows of the event log.
#include <SQLiteCpp/Statement.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "journal/embedded_sql.h"
#include "journal/journal.h"
#include "journal/migrator.h"
#include "support/temp_dir.h"

namespace tpslurm::journal {
namespace {

std::string dump_schema(SQLite::Database& db) {
  std::string out =
      "-- The journal's schema after every migration in migrations/, as SQLite stores it.\n"
      "-- Generated; tests/journal/schema_test.cc checks it. To regenerate after adding a migration:\n"
      "--   TP_UPDATE_GOLDEN=1 build/dev/tests/journal/journal_tests --gtest_filter='SchemaTest.*'\n\n";
  SQLite::Statement query(db,
                          "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
                          "AND type IN ('table', 'index', 'trigger') ORDER BY type = 'table' DESC, "
                          "type = 'index' DESC, name");
  while (query.executeStep()) out += query.getColumn(0).getString() + ";\n\n";
  return out;
}

TEST(SchemaTest, SchemaSqlEqualsTheMigratedSchema) {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  const ManualClock clock(from_unix_seconds(0));
  auto migrations = load_migrations(embedded_migrations());
  ASSERT_TRUE(migrations.ok()) << migrations.error().message();
  ASSERT_TRUE(migrate(db, *migrations, clock).ok());
  const std::string actual = dump_schema(db);
  const std::string path = std::string(TP_SOURCE_DIR) + "/schema/schema.sql";
  if (std::getenv("TP_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path, std::ios::binary) << actual;
  }
  EXPECT_EQ(testing::read_test_file(path), actual)
      << "schema/schema.sql is stale; regenerate it with TP_UPDATE_GOLDEN=1 (see its header)";
}

TEST(SchemaTest, EmbeddedSqlIsTheSourceTreesSql) {
  const auto migrations = embedded_migrations();
  ASSERT_FALSE(migrations.empty());
  for (const auto& file : migrations) {
    const std::string path = std::string(TP_SOURCE_DIR) + "/migrations/" + std::string(file.name) + ".sql";
    EXPECT_EQ(testing::read_test_file(path), file.sql) << path;
  }
  EXPECT_EQ(testing::read_test_file(std::string(TP_SOURCE_DIR) + "/schema/audit.sql"), embedded_audit_sql());
}

TEST(SchemaTest, NoInsertOrReplaceAnywhereNearTheJournal) {
  for (const char* dir : {"src/journal", "migrations", "schema"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(TP_SOURCE_DIR) + "/" + dir)) {
      std::string text = testing::read_test_file(entry.path().string());
      for (auto& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      // The triggers' own comment names the statement it guards against.
      std::size_t at = 0;
      while ((at = text.find("OR REPLACE", at)) != std::string::npos) {
        const std::size_t line_start = text.rfind('\n', at) + 1;
        const std::string line = text.substr(line_start, text.find('\n', at) - line_start);
        EXPECT_EQ(line.find("--"), 0u) << entry.path() << ": " << line;
        at += 10;
      }
    }
  }
}

}  // namespace
}  // namespace tpslurm::journal
