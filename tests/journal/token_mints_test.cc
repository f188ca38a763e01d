// Each token minted from the cluster's key, journaled without the token: listed newest last,
// by user, within a limit; the purpose is one of two words; the table is append-only.
#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>

#include "journal/journal.h"
#include "journal_fixture.h"

namespace tpslurm::journal {
namespace {

TEST_F(JournalTest, MintsAreListedNewestLastByUserAndWithinTheLimit) {
  const MintRecord first{"2026-12-07T10:00:00Z", "tuneplane", "2026-12-07T10:10:00Z", "service"};
  const MintRecord alice{"2026-12-07T10:00:01Z", "alice", "2026-12-07T10:10:01Z", "job_user"};
  const MintRecord second{"2026-12-07T10:08:00Z", "tuneplane", "2026-12-07T10:18:00Z", "service"};
  for (const auto& mint : {first, alice, second}) ASSERT_TRUE(journal->record_mint(mint).ok());
  EXPECT_EQ(*journal->mints("", 10), (std::vector<MintRecord>{first, alice, second}));
  EXPECT_EQ(*journal->mints("tuneplane", 10), (std::vector<MintRecord>{first, second}));
  EXPECT_EQ(*journal->mints("", 2), (std::vector<MintRecord>{alice, second})) << "the newest two";
  EXPECT_TRUE(journal->mints("bob", 10)->empty());
}

TEST_F(JournalTest, AMintsPurposeIsServiceOrJobUserAndMintsAreNeverChanged) {
  const auto refused = journal->record_mint({"2026-12-07T10:00:00Z", "alice", "2026-12-07T10:10:00Z", "admin"});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message(), "a token mint's purpose is service or job_user, not \"admin\"");
  ASSERT_TRUE(journal->record_mint({"2026-12-07T10:00:00Z", "alice", "2026-12-07T10:10:00Z", "job_user"}).ok());
  SQLite::Database db(dir.file("state/journal.db"), SQLite::OPEN_READWRITE);
  EXPECT_THROW(db.exec("UPDATE token_mints SET user = 'bob'"), SQLite::Exception);
  EXPECT_THROW(db.exec("DELETE FROM token_mints"), SQLite::Exception);
  EXPECT_EQ(journal->mints("alice", 10)->size(), 1u);
}

}  // namespace
}  // namespace tpslurm::journal
