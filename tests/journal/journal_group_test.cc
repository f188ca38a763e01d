// Group commit (Journal::begin_group / end_group): the writes of a group are seen by other
// connections only when the group commits, each write succeeds or fails on its own, and a
// group is neither nested nor ended twice.
#include <gtest/gtest.h>

#include "journal_fixture.h"

namespace tpslurm::journal {
namespace {

using model::AttemptState;

class JournalGroupTest : public JournalTest {
 protected:
  // What another connection (the CLI, the API) sees.
  std::size_t jobs_seen_elsewhere() {
    auto other = Journal::open(dir.file("state/journal.db"), clock);
    EXPECT_TRUE(other.ok());
    auto jobs = (*other)->jobs();
    EXPECT_TRUE(jobs.ok());
    return jobs.ok() ? jobs->size() : 0;
  }
};

TEST_F(JournalGroupTest, OtherConnectionsSeeTheGroupsWritesOnlyWhenItCommits) {
  ASSERT_TRUE(journal->begin_group().ok());
  ASSERT_TRUE(journal->add_job(job("a")).ok());
  ASSERT_TRUE(journal->add_job(job("b")).ok());
  EXPECT_EQ(journal->jobs()->size(), 2U) << "this connection sees its own group";
  EXPECT_EQ(jobs_seen_elsewhere(), 0U) << "nothing committed yet";
  ASSERT_TRUE(journal->end_group().ok());
  EXPECT_EQ(jobs_seen_elsewhere(), 2U);
}

TEST_F(JournalGroupTest, AWriteThatFailsInAGroupLeavesTheOthers) {
  ASSERT_TRUE(journal->add_job(job("a")).ok());
  ASSERT_TRUE(journal->add_attempt("a", 1, "token-a", "input").ok());
  ASSERT_TRUE(journal->begin_group().ok());
  ASSERT_TRUE(journal->add_job(job("b")).ok());
  // Not in `prepared`: refused, and its savepoint is rolled back (no event, no change).
  EXPECT_FALSE(journal->transition({"a", 1}, AttemptState::prepared, AttemptState::submitting, {}, {}).ok());
  ASSERT_TRUE(journal->transition({"a", 1}, AttemptState::preparing, AttemptState::prepared, {}, {}).ok());
  ASSERT_TRUE(journal->end_group().ok());
  EXPECT_EQ(jobs_seen_elsewhere(), 2U);
  EXPECT_EQ((*journal->attempts("a"))[0].state, AttemptState::prepared);
}

TEST_F(JournalGroupTest, AGroupIsNotNestedNorEndedTwice) {
  EXPECT_FALSE(journal->end_group().ok()) << "no group is open";
  ASSERT_TRUE(journal->begin_group().ok());
  EXPECT_FALSE(journal->begin_group().ok()) << "not nested";
  ASSERT_TRUE(journal->add_job(job("a")).ok());
  ASSERT_TRUE(journal->end_group().ok());
  EXPECT_FALSE(journal->end_group().ok());
  ASSERT_TRUE(journal->add_job(job("b")).ok()) << "after the group, a write is its own transaction again";
  EXPECT_EQ(jobs_seen_elsewhere(), 2U);
}

}  // namespace
}  // namespace tpslurm::journal
