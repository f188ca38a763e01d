// The operator's commands as users meet them (the real binary): pause and resume, cancel (with
// grace), resolve with its refusals, cleanup --force, status of a followed job, journal
// restore and safe mode, a backup before an upgrade's migrate, and serve's lock.
#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "cli_fixture.h"
#include "journal/daemon_lock.h"
#include "journal/journal.h"
#include "support/journal_story.h"

namespace tpslurm::cli {
namespace {

using model::AttemptState;
using testing::ProcessResult;

class OperatorCommandsTest : public CliFixture {
 protected:
  OperatorCommandsTest() { env["TUNEPLANE_RESOLVE_QUIET_PERIOD"] = "10m"; }

  // A job whose first attempt's submit answer was lost at `intent` (journaled with a clock
  // set there, as the daemon would have).
  void blocked_job(const std::string& job_id, TimePoint intent) {
    ASSERT_TRUE(tpslurm::testing::add_blocked_job(dir.file("state/journal.db"), job_id, intent).ok());
  }

  // A search by tag journaled at `at`.
  void searched(const std::string& job_id, TimePoint at, bool complete) {
    ASSERT_TRUE(tpslurm::testing::record_search(dir.file("state/journal.db"), job_id, at, complete).ok());
  }

  AttemptState state_of(const std::string& job_id, int number = 1) {
    SystemClock clock;
    auto journal = journal::Journal::open(dir.file("state/journal.db"), clock);
    EXPECT_TRUE(journal.ok());
    auto attempts = (*journal)->attempts(job_id);
    EXPECT_TRUE(attempts.ok() && attempts->size() >= static_cast<std::size_t>(number));
    return (*attempts)[static_cast<std::size_t>(number - 1)].state;
  }
};

TEST_F(OperatorCommandsTest, PauseAndResumeAreJournaledAndIdempotent) {
  const auto no_reason = cli({"pause"});
  EXPECT_EQ(no_reason.exit_code, 2) << no_reason.err;
  const auto paused = cli({"pause", "--reason", "storage maintenance"});
  EXPECT_EQ(paused.exit_code, 0) << paused.err;
  EXPECT_EQ(paused.out, "paused: nothing new is submitted; submitted jobs are still followed\n");
  const auto again = cli({"pause", "--reason", "again"});
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_NE(again.out.find("already paused since "), std::string::npos) << again.out;
  EXPECT_EQ(cli({"resume"}).out, "resumed: submitting again\n");
  EXPECT_EQ(cli({"resume"}).out, "not paused; nothing changed\n");
}

TEST_F(OperatorCommandsTest, CancelJournalsTheDesireOnce) {
  ASSERT_EQ(cli({"submit", source("etc/launch-request.example.json")}).exit_code, 0);
  const auto cancelled = cli({"cancel", "ft-7f3c2a", "--reason", "wrong data"});
  EXPECT_EQ(cancelled.exit_code, 0) << cancelled.err;
  EXPECT_EQ(cancelled.out, "ft-7f3c2a: cancel requested (queued); the daemon applies it\n");
  EXPECT_EQ(cli({"cancel", "ft-7f3c2a"}).out, "ft-7f3c2a: cancel already requested\n");
  const auto unknown = cli({"cancel", "nope"});
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_EQ(unknown.err, "tuneplane-slurm: no job nope in the journal\n");
  const auto audit = cli({"audit", "ft-7f3c2a"});
  EXPECT_NE(audit.out.find("wrong data"), std::string::npos) << audit.out;
}

TEST_F(OperatorCommandsTest, CancelWithGraceJournalsTheGrace) {
  ASSERT_EQ(cli({"submit", source("etc/launch-request.example.json")}).exit_code, 0);
  const auto bad = cli({"cancel", "ft-7f3c2a", "--grace", "90000"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("--grace"), std::string::npos) << bad.err;
  const auto cancelled = cli({"cancel", "ft-7f3c2a", "--grace", "30"});
  EXPECT_EQ(cancelled.exit_code, 0) << cancelled.err;
  EXPECT_NE(cancelled.out.find("SIGUSR1 first and the kill 30 s later"), std::string::npos) << cancelled.out;
  SystemClock clock;
  auto journal = journal::Journal::open(dir.file("state/journal.db"), clock);
  ASSERT_TRUE(journal.ok());
  auto job = (*journal)->job("ft-7f3c2a");
  ASSERT_TRUE(job.ok() && job->has_value());
  EXPECT_EQ((*job)->cancel_grace_seconds, 30);
}

TEST_F(OperatorCommandsTest, CleanupForceMovesAStuckStepOnAndIsJournaled) {
  blocked_job("stuck", SystemClock().now());
  {
    SystemClock clock;
    auto journal = journal::Journal::open(dir.file("state/journal.db"), clock);
    ASSERT_TRUE(journal.ok());
    journal::AttemptChanges found;
    found.slurm_job_id = 42;
    ASSERT_TRUE(
        (*journal)->transition({"stuck", 1}, AttemptState::submit_unknown, AttemptState::submitted, found, {}).ok());
    const auto live = cli({"cleanup", "stuck/1", "--force", "--reason", "x"});
    EXPECT_EQ(live.exit_code, 2) << "only ended attempts have a cleanup";
    EXPECT_NE(live.err.find("is submitted"), std::string::npos) << live.err;
    ASSERT_TRUE((*journal)->transition({"stuck", 1}, AttemptState::submitted, AttemptState::succeeded, {}, {}).ok());
    ASSERT_TRUE((*journal)
                    ->advance_cleanup({"stuck", 1}, model::CleanupStep::none, model::CleanupStep::epilog_pending, {})
                    .ok());
  }
  const auto shown = cli({"cleanup", "stuck"});
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("cleanup epilog_pending"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("stop waiting for Slurm"), std::string::npos) << shown.out;
  const auto no_reason = cli({"cleanup", "stuck/1", "--force"});
  EXPECT_EQ(no_reason.exit_code, 2);
  EXPECT_NE(no_reason.err.find("--reason"), std::string::npos) << no_reason.err;
  const auto forced = cli({"cleanup", "stuck/1", "--force", "--reason", "node rebooted, epilog never ends"});
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_EQ(forced.out, "stuck/1: cleanup forced epilog_pending -> staging_pending; the daemon takes the next steps\n");
  const auto audit = cli({"audit", "stuck"});
  EXPECT_NE(audit.out.find("node rebooted, epilog never ends (forced by"), std::string::npos) << audit.out;
  EXPECT_NE(cli({"cleanup", "stuck/2"}).exit_code, 0) << "no such attempt";
}

TEST_F(OperatorCommandsTest, StatusShowsTheComponentsOfAFollowedJob) {
  blocked_job("het", SystemClock().now());
  {
    SystemClock clock;
    auto journal = journal::Journal::open(dir.file("state/journal.db"), clock);
    ASSERT_TRUE(journal.ok());
    journal::AttemptChanges found;
    found.slurm_job_id = 40;
    found.components =
        R"([{"offset":0,"job_id":40,"sluid":"s1","state":"RUNNING","reason":"None","exit_code":null,"exit_signal":null,"nodes":"vm","start":"2026-12-01T10:00:00Z","end":""},{"offset":1,"job_id":41,"sluid":"s2","state":"FAILED","reason":"NonZeroExitCode","exit_code":3,"exit_signal":null,"nodes":"vm-emu","start":"2026-12-01T10:00:00Z","end":"2026-12-01T10:05:00Z"}])";
    found.observed = true;
    ASSERT_TRUE(
        (*journal)->transition({"het", 1}, AttemptState::submit_unknown, AttemptState::submitted, found, {}).ok());
  }
  const auto shown = cli({"status", "het"});
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("attempt 1 in Slurm:"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("NonZeroExitCode"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("vm-emu"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("Slurm last polled: never"), std::string::npos) << shown.out;
  const auto json = cli({"status", "het", "--json"});
  EXPECT_NE(json.out.find("\"observed_at\":\"20"), std::string::npos) << json.out;
}

TEST_F(OperatorCommandsTest, ResolveAbsentIsRefusedUntilTheQuietPeriodPassed) {
  ASSERT_EQ(cli({"migrate"}).exit_code, 0);
  blocked_job("b1", SystemClock().now() - std::chrono::minutes(4));
  const auto early = cli({"resolve", "b1/1", "--absent", "--reason", "checked slurmctld.log"});
  EXPECT_NE(early.exit_code, 0);
  EXPECT_NE(early.err.find("refused to resolve b1/1 as absent: the quiet period (TUNEPLANE_RESOLVE_QUIET_PERIOD) "
                           "has not passed: 5 min"),
            std::string::npos)
      << early.err;
  EXPECT_EQ(state_of("b1"), AttemptState::submit_unknown);
}

TEST_F(OperatorCommandsTest, ResolveAbsentNeedsACompleteSearchAfterTheQuietPeriod) {
  ASSERT_EQ(cli({"migrate"}).exit_code, 0);
  const TimePoint intent = SystemClock().now() - std::chrono::hours(1);
  blocked_job("b1", intent);
  searched("b1", intent + std::chrono::minutes(5), true);    // complete, but inside the quiet period
  searched("b1", intent + std::chrono::minutes(20), false);  // after it, but incomplete
  const auto refused = cli({"resolve", "b1", "--absent", "--reason", "gone"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("no complete search (every source answering) has run since the quiet period ended"),
            std::string::npos)
      << refused.err;
  const auto blocked = cli({"audit", "--blocked"});
  EXPECT_NE(blocked.out.find("slurmctld job list: ok"), std::string::npos) << blocked.out;
  EXPECT_NE(blocked.out.find("60 min"), std::string::npos) << blocked.out;
  EXPECT_NE(blocked.out.find("(20m after the intent)"), std::string::npos) << "the last search\n" << blocked.out;
  EXPECT_NE(blocked.out.find("(5m after the intent)"), std::string::npos) << "the last complete one\n" << blocked.out;
  const auto as_json = cli({"audit", "--blocked", "--json"});
  EXPECT_NE(as_json.out.find("\"last_complete_search_elapsed_s\":300"), std::string::npos) << as_json.out;

  searched("b1", intent + std::chrono::minutes(30), true);
  const auto no_reason = cli({"resolve", "b1/1", "--absent"});
  EXPECT_EQ(no_reason.exit_code, 2) << no_reason.err;
  const auto resolved = cli({"resolve", "b1/1", "--absent", "--reason", "slurmctld.log shows no such job"});
  EXPECT_EQ(resolved.exit_code, 0) << resolved.err;
  EXPECT_EQ(resolved.out, "b1/1: resolved absent; the tag stays watched\n");
  EXPECT_EQ(state_of("b1"), AttemptState::abandoned);
  const auto audit = cli({"audit", "b1"});
  EXPECT_NE(audit.out.find("slurmctld.log shows no such job"), std::string::npos) << audit.out;
  const auto twice = cli({"resolve", "b1/1", "--absent", "--reason", "again"});
  EXPECT_NE(twice.exit_code, 0);
  EXPECT_NE(twice.err.find("is abandoned: only a submit whose answer was lost"), std::string::npos) << twice.err;
}

TEST_F(OperatorCommandsTest, ResolveTakesExactlyOneAnswer) {
  const auto neither = cli({"resolve", "b1/1", "--reason", "x"});
  EXPECT_EQ(neither.exit_code, 2);
  EXPECT_EQ(neither.err, "tuneplane-slurm: resolve needs exactly one of --absent, --adopt <job id|SLUID> or --lost\n");
  const auto both = cli({"resolve", "b1/1", "--absent", "--lost", "--reason", "x"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_EQ(both.err, neither.err);
  const auto no_reason = cli({"resolve", "b1/1", "--lost"});
  EXPECT_EQ(no_reason.exit_code, 2);
  EXPECT_EQ(no_reason.err, "tuneplane-slurm: resolve --lost needs --reason TEXT\n");
}

TEST_F(OperatorCommandsTest, RestoreKeepsTheCurrentJournalAndTurnsSafeModeOn) {
  ASSERT_EQ(cli({"submit", source("etc/launch-request.example.json")}).exit_code, 0);
  ASSERT_EQ(cli({"journal", "backup", dir.file("backup.db")}).exit_code, 0);
  ASSERT_EQ(cli({"cancel", "ft-7f3c2a"}).exit_code, 0);
  const auto bad = cli({"journal", "restore", dir.file("missing.db")});
  EXPECT_NE(bad.exit_code, 0);
  const auto restored = cli({"journal", "restore", dir.file("backup.db"), "--reason", "disk lost"});
  ASSERT_EQ(restored.exit_code, 0) << restored.err;
  EXPECT_NE(restored.out.find("safe mode is on"), std::string::npos) << restored.out;
  // The restored content: the cancel made after the backup is gone from the journal ...
  EXPECT_EQ(cli({"cancel", "ft-7f3c2a"}).out, "ft-7f3c2a: cancel requested (queued); the daemon applies it\n");
  EXPECT_EQ(cli({"journal", "clear-safe-mode", "--reason", "checked Slurm"}).out, "safe mode cleared\n");
  EXPECT_EQ(cli({"journal", "clear-safe-mode", "--reason", "again"}).out, "safe mode was not on; nothing changed\n");
}

// A restore killed right after the journal took the backup's content leaves safe mode on: no
// journal behind Slurm is ever seen without it.
TEST_F(OperatorCommandsTest, ARestoreInterruptedAfterTheCopyLeavesSafeModeOn) {
  ASSERT_EQ(cli({"submit", source("etc/launch-request.example.json")}).exit_code, 0);
  ASSERT_EQ(cli({"journal", "backup", dir.file("backup.db")}).exit_code, 0);
  env["TUNEPLANE_CRASH_AT"] = "restore.after_copy";
  const auto killed = cli({"journal", "restore", dir.file("backup.db"), "--reason", "disk lost"});
  ASSERT_EQ(killed.exit_code, 86) << killed.err;
  env.erase("TUNEPLANE_CRASH_AT");
  EXPECT_EQ(cli({"journal", "clear-safe-mode", "--reason", "checked Slurm"}).out, "safe mode cleared\n");
}

TEST_F(OperatorCommandsTest, RestoreAndServeAreRefusedWhileADaemonHoldsTheLock) {
  ASSERT_EQ(cli({"migrate"}).exit_code, 0);
  auto held = journal::DaemonLock::acquire(dir.file("state/journal.db"));
  ASSERT_TRUE(held.ok()) << held.error().message();
  const std::string pid = std::to_string(::getpid());
  const auto serve = cli({"serve", "--once"});
  EXPECT_NE(serve.exit_code, 0);
  EXPECT_NE(serve.err.find("(pid " + pid + ")"), std::string::npos) << serve.err;
  const auto restore = cli({"journal", "restore", dir.file("state/journal.db")});
  EXPECT_NE(restore.exit_code, 0);
  EXPECT_NE(restore.err.find("stop `serve` first"), std::string::npos) << restore.err;
}

// An upgrade's order (the package's postinst; the operators-guide's *Upgrade*): the new binary
// backs up a journal it is ahead of, as it is, then migrates it. Until then the journal is
// refused, with that fix.
TEST_F(OperatorCommandsTest, AJournalBehindThisBinaryIsBackedUpAsItIsThenMigrated) {
  ASSERT_EQ(cli({"submit", source("etc/launch-request.example.json")}).exit_code, 0);
  const auto newest = [](const std::string& path) {
    SQLite::Database db(path, SQLite::OPEN_READONLY);
    return db.execAndGet("SELECT max(number) FROM schema_migrations").getInt();
  };
  const int current = newest(dir.file("state/journal.db"));
  ASSERT_EQ(current, 10) << "undo the newest migration below, whichever it is";
  {
    SQLite::Database db(dir.file("state/journal.db"), SQLite::OPEN_READWRITE);
    db.exec(
        "DROP INDEX jobs_by_sweep; ALTER TABLE jobs DROP COLUMN sweep_index; ALTER TABLE jobs DROP COLUMN sweep_id;"
        "DROP TABLE sweeps; DELETE FROM schema_migrations WHERE number = 10");
  }
  const auto refused = cli({"status"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("run `tuneplane-slurm migrate` (after `tuneplane-slurm journal backup FILE`)"),
            std::string::npos)
      << refused.err;

  const auto backup = cli({"journal", "backup", dir.file("before-upgrade.db")});
  ASSERT_EQ(backup.exit_code, 0) << backup.err;
  ASSERT_EQ(cli({"migrate"}).exit_code, 0);
  EXPECT_EQ(newest(dir.file("before-upgrade.db")), 9);
  EXPECT_EQ(newest(dir.file("state/journal.db")), 10);
  EXPECT_NE(cli({"status"}).out.find("ft-7f3c2a"), std::string::npos);
}

}  // namespace
}  // namespace tpslurm::cli
