// WriteTransaction inside a group: a write is a savepoint that can be undone alone; once SQLite
// has rolled the group's transaction back (as it does on its own after SQLITE_FULL or an I/O
// error), a write begun in the group refuses to run outside any transaction.
#include "journal/write_transaction.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>
#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace tpslurm::journal {
namespace {

class WriteTransactionTest : public ::testing::Test {
 protected:
  void SetUp() override { db.exec("CREATE TABLE t (v INTEGER)"); }
  int rows() { return db.execAndGet("SELECT count(*) FROM t").getInt(); }

  tpslurm::testing::TempDir dir;
  SQLite::Database db{dir.file("t.db"), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE};
};

TEST_F(WriteTransactionTest, AWriteUndoneInAGroupLeavesTheGroupsOtherWrites) {
  db.exec("BEGIN IMMEDIATE");
  {
    WriteTransaction first(db, true);
    db.exec("INSERT INTO t VALUES (1)");
    first.commit();
  }
  {
    WriteTransaction second(db, true);
    db.exec("INSERT INTO t VALUES (2)");
  }  // not committed: undone
  EXPECT_TRUE(in_transaction(db));
  db.exec("COMMIT");
  EXPECT_EQ(rows(), 1);
}

TEST_F(WriteTransactionTest, AfterTheGroupWasRolledBackAWriteInItRefusesToRun) {
  db.exec("BEGIN IMMEDIATE");
  {
    WriteTransaction first(db, true);
    db.exec("INSERT INTO t VALUES (1)");
    first.commit();
  }
  db.exec("ROLLBACK");  // what SQLite does by itself after SQLITE_FULL or an I/O error
  EXPECT_THROW(WriteTransaction(db, true), SQLite::Exception);
  EXPECT_FALSE(in_transaction(db)) << "nothing began outside the group";
  EXPECT_EQ(rows(), 0);
}

TEST_F(WriteTransactionTest, OutsideAGroupAWriteIsItsOwnTransaction) {
  {
    WriteTransaction alone(db, false);
    db.exec("INSERT INTO t VALUES (1)");
    alone.commit();
  }
  {
    WriteTransaction dropped(db, false);
    db.exec("INSERT INTO t VALUES (2)");
  }
  EXPECT_FALSE(in_transaction(db));
  EXPECT_EQ(rows(), 1);
}

}  // namespace
}  // namespace tpslurm::journal
