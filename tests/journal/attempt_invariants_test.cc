// The attempts' invariants (docs/architecture.md §4): at most one live attempt per job, a new
// attempt only after the previous one ended and its cleanup closed, never more than the job's
// max_attempts, and a Slurm job id in every state from submitted on. The journal's code
// refuses with a message naming the fix; the schema (migrations/0002) stops a raw SQL writer.
#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>

#include "journal/embedded_sql.h"
#include "journal/migrator.h"
#include "journal_fixture.h"

namespace tpslurm::journal {
namespace {

using model::AttemptState;
using model::JobPhase;

std::string refusal(const Result<AttemptRecord>& added) { return added.ok() ? "accepted" : added.error().message(); }

TEST_F(JournalTest, AJobHasAtMostOneLiveAttempt) {
  walk("j1", {AttemptState::prepared, AttemptState::submitting, AttemptState::submitted, AttemptState::running});
  EXPECT_EQ(refusal(journal->add_attempt("j1", 2, "t2", "in")),
            "job j1: attempt 1 is still running; the next attempt starts only after it has ended and its cleanup is "
            "closed");
  EXPECT_EQ(journal->attempts("j1")->size(), 1u);
}

TEST_F(JournalTest, ANewAttemptWaitsUntilThePreviousCleanupIsClosed) {
  walk("j1", {AttemptState::prepared, AttemptState::submitting, AttemptState::submitted, AttemptState::running});
  ASSERT_TRUE(journal->transition({"j1", 1}, AttemptState::running, AttemptState::failed, retryable(), {}).ok());
  ASSERT_TRUE(
      journal->advance_cleanup({"j1", 1}, model::CleanupStep::none, model::CleanupStep::epilog_pending, {}).ok());
  EXPECT_EQ(refusal(journal->add_attempt("j1", 2, "t2", "in")),
            "job j1: attempt 1 has ended (failed) but its cleanup is epilog_pending; the next attempt starts only "
            "after the cleanup is closed");
  ASSERT_TRUE(
      journal->advance_cleanup({"j1", 1}, model::CleanupStep::epilog_pending, model::CleanupStep::staging_pending, {})
          .ok());
  ASSERT_TRUE(
      journal->advance_cleanup({"j1", 1}, model::CleanupStep::staging_pending, model::CleanupStep::sealing, {}).ok());
  ASSERT_TRUE(journal->advance_cleanup({"j1", 1}, model::CleanupStep::sealing, model::CleanupStep::closed, {}).ok());
  EXPECT_EQ(refusal(journal->add_attempt("j1", 2, "t2", "in")), "accepted");
}

TEST_F(JournalTest, NeverMoreAttemptsThanMaxAttempts) {
  ASSERT_TRUE(journal->add_job(job("j1")).ok());  // max_attempts 2
  walk_attempt("j1", 1, {AttemptState::prepared});
  end_for_retry("j1", 1, AttemptState::prepared);
  walk_attempt("j1", 2, {AttemptState::prepared});
  end_for_retry("j1", 2, AttemptState::prepared);
  EXPECT_EQ(journal->job("j1")->value().phase, JobPhase::queued);
  EXPECT_EQ(refusal(journal->add_attempt("j1", 3, "t3", "in")),
            "job j1 has made all its attempts (spec.retry.max_attempts is 2); it takes no new attempt");

  ASSERT_TRUE(journal->add_job(job("j2", std::string(64, 'a'), 1)).ok());
  walk_attempt("j2", 1, {AttemptState::prepared});
  end_for_retry("j2", 1, AttemptState::prepared);
  EXPECT_EQ(refusal(journal->add_attempt("j2", 2, "t2", "in")),
            "job j2 has made all its attempts (spec.retry.max_attempts is 1); it takes no new attempt");
}

TEST_F(JournalTest, FromSubmittedOnAnAttemptNeedsItsSlurmJobId) {
  walk("j1", {AttemptState::prepared, AttemptState::submitting});
  const Status bare = journal->transition({"j1", 1}, AttemptState::submitting, AttemptState::submitted, {}, {});
  ASSERT_FALSE(bare.ok());
  EXPECT_EQ(bare.error().kind(), ErrorKind::invalid_argument);
  EXPECT_EQ(bare.error().message(),
            "attempt j1/1: submitting -> submitted needs the Slurm job id (from the receipt, the evidence or a "
            "search); none was given");
  EXPECT_EQ(journal->attempts("j1")->front().state, AttemptState::submitting);
  AttemptChanges receipt;
  receipt.slurm_job_id = 4242;
  ASSERT_TRUE(journal->transition({"j1", 1}, AttemptState::submitting, AttemptState::submitted, receipt, {}).ok());
  // Once journaled, the id carries the later moves.
  EXPECT_TRUE(journal->transition({"j1", 1}, AttemptState::submitted, AttemptState::running, {}, {}).ok());
  EXPECT_TRUE(journal->transition({"j1", 1}, AttemptState::running, AttemptState::cancelled, {}, {}).ok());
  EXPECT_EQ(journal->attempts("j1")->front().slurm_job_id, 4242u);
}

// A writer that bypasses the journal's code (a script, the sqlite3 shell).
class RawWriterTest : public JournalTest {
 protected:
  std::string exec(const std::string& sql) {
    SQLite::Database db(journal->path(), SQLite::OPEN_READWRITE);
    try {
      db.exec(sql);
      return "accepted";
    } catch (const SQLite::Exception& e) {
      return e.what();
    }
  }

  static std::string insert_attempt(int number, const std::string& state = "preparing") {
    return "INSERT INTO attempts (job_id, number, submit_token, state, input_sha256, created_at, updated_at) "
           "VALUES ('j1', " +
           std::to_string(number) + ", 'raw-" + std::to_string(number) + "', '" + state + "', 'in', 'now', 'now')";
  }
};

TEST_F(RawWriterTest, CannotStartAnAttemptBeforeThePreviousOneIsClosed) {
  ASSERT_TRUE(journal->add_job(job("j1", std::string(64, 'a'), 3)).ok());
  walk_attempt("j1", 1, {AttemptState::prepared});
  EXPECT_EQ(exec(insert_attempt(2)),
            "attempts: a new attempt only after the previous one has ended and its cleanup is closed");
  ASSERT_TRUE(journal->transition({"j1", 1}, AttemptState::prepared, AttemptState::failed, retryable(), {}).ok());
  EXPECT_EQ(exec(insert_attempt(2)),
            "attempts: a new attempt only after the previous one has ended and its cleanup is closed");
  EXPECT_EQ(exec("UPDATE attempts SET cleanup = 'closed' WHERE job_id = 'j1' AND number = 1"), "accepted");
  EXPECT_EQ(exec(insert_attempt(3)),
            "attempts: a new attempt starts in preparing and is numbered right after the job's last one");
  EXPECT_EQ(exec(insert_attempt(2, "running")),
            "attempts: a new attempt starts in preparing and is numbered right after the job's last one");
  EXPECT_EQ(exec(insert_attempt(2)), "accepted");
}

TEST_F(RawWriterTest, CannotHaveTwoLiveAttemptsOrCleanUpALiveOne) {
  walk("j1", {AttemptState::prepared});
  end_for_retry("j1", 1, AttemptState::prepared);
  walk_attempt("j1", 2, {AttemptState::prepared});
  EXPECT_EQ(exec("UPDATE attempts SET state = 'prepared', cleanup = 'none' WHERE job_id = 'j1' AND number = 1"),
            "UNIQUE constraint failed: attempts.job_id");
  EXPECT_EQ(exec("UPDATE attempts SET cleanup = 'closed' WHERE job_id = 'j1' AND number = 2"),
            "attempts: cleanup starts only when an attempt has ended");
}

TEST_F(RawWriterTest, CannotExceedMaxAttempts) {
  walk("j1", {AttemptState::prepared});  // max_attempts 2
  end_for_retry("j1", 1, AttemptState::prepared);
  walk_attempt("j1", 2, {AttemptState::prepared});
  end_for_retry("j1", 2, AttemptState::prepared);
  EXPECT_EQ(exec(insert_attempt(3)), "attempts: a job takes no more attempts than its max_attempts");
  EXPECT_EQ(exec("UPDATE jobs SET max_attempts = 1 WHERE job_id = 'j1'"),
            "jobs: max_attempts cannot drop below the attempts already made");
  EXPECT_EQ(exec("UPDATE jobs SET max_attempts = 3 WHERE job_id = 'j1'"), "accepted");
  EXPECT_EQ(exec(insert_attempt(3)), "accepted");
}

TEST_F(RawWriterTest, CannotDropTheSlurmJobIdFromSubmittedOn) {
  walk("j1", {AttemptState::prepared, AttemptState::submitting});
  const std::string needs = "attempts: every state from submitted on needs the attempt's slurm_job_id";
  EXPECT_EQ(exec("UPDATE attempts SET state = 'submitted' WHERE job_id = 'j1'"), needs);
  EXPECT_EQ(exec("UPDATE attempts SET state = 'submitted', slurm_job_id = 7 WHERE job_id = 'j1'"), "accepted");
  EXPECT_EQ(exec("UPDATE attempts SET slurm_job_id = NULL WHERE job_id = 'j1'"), needs);
  EXPECT_EQ(exec("UPDATE attempts SET state = 'failed', slurm_job_id = NULL WHERE job_id = 'j1'"), needs);
  EXPECT_EQ(exec("UPDATE attempts SET state = 'failed' WHERE job_id = 'j1'"), "accepted");
  EXPECT_EQ(exec("UPDATE attempts SET slurm_job_id = NULL WHERE job_id = 'j1'"), needs);
}

// A journal created before migration 0002, holding job j1 (max_attempts 2).
class AttemptInvariantsMigrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = load_migrations(embedded_migrations());
    ASSERT_TRUE(loaded.ok());
    migrations = *loaded;
    ASSERT_TRUE(migrate(db, {migrations.front()}, clock).ok());
    db.exec(
        "INSERT INTO jobs (job_id, request_json, request_sha256, max_attempts, created_at, updated_at) "
        "VALUES ('j1', '{}', 'h', 2, 'now', 'now')");
  }

  SQLite::Database db{":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE};
  const ManualClock clock{from_unix_seconds(0)};
  std::vector<Migration> migrations;
};

TEST_F(AttemptInvariantsMigrationTest, AJournalAtMigrationOneUpgrades) {
  db.exec(
      "INSERT INTO attempts (job_id, number, submit_token, state, input_sha256, slurm_job_id, cleanup, "
      "created_at, updated_at) VALUES ('j1', 1, 't1', 'failed', 'in', 5, 'closed', 'now', 'now'), "
      "('j1', 2, 't2', 'running', 'in', 6, 'none', 'now', 'now')");
  const auto upgraded = migrate(db, migrations, clock);
  ASSERT_TRUE(upgraded.ok()) << upgraded.error().message();
  EXPECT_EQ(upgraded->applied, static_cast<int>(migrations.size()));
  EXPECT_EQ(db.execAndGet("SELECT count(*) FROM attempts").getInt(), 2);
}

TEST_F(AttemptInvariantsMigrationTest, AJournalThatAlreadyBreaksThemIsRefusedAndLeftAlone) {
  db.exec(
      "INSERT INTO attempts (job_id, number, submit_token, state, input_sha256, created_at, updated_at) "
      "VALUES ('j1', 1, 't1', 'running', 'in', 'now', 'now'), ('j1', 2, 't2', 'running', 'in', 'now', 'now')");
  const auto refused = migrate(db, migrations, clock);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message(),
            "migration 0002_attempt_invariants failed and was rolled back: UNIQUE constraint failed: attempts.job_id");
  EXPECT_EQ(db.execAndGet("SELECT max(number) FROM schema_migrations").getInt(), 1);
}

}  // namespace
}  // namespace tpslurm::journal
