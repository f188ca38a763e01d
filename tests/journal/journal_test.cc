#include "journal/journal.h"

#include <SQLiteCpp/Database.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "journal_fixture.h"
#include "support/temp_dir.h"

namespace tpslurm::journal {
namespace {

using model::AttemptState;
using model::CleanupStep;
using model::JobPhase;
using testing::TempDir;

TEST_F(JournalTest, OpensInWalModeWithTheFullSchemaAndPrivateDirectory) {
  SQLite::Database db(journal->path(), SQLite::OPEN_READONLY);
  EXPECT_EQ(db.execAndGet("PRAGMA journal_mode").getString(), "wal");
  EXPECT_TRUE(db.tableExists("jobs"));
  EXPECT_EQ(db.execAndGet("SELECT count(*) FROM sqlite_master WHERE type = 'view'").getInt(), 3);
  struct stat info {};
  ASSERT_EQ(::stat(dir.file("state").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
}

TEST_F(JournalTest, AddingAJobIsIdempotentByRequestHash) {
  EXPECT_EQ(*journal->add_job(job("j1")), model::SubmitOutcome::created);
  EXPECT_EQ(*journal->add_job(job("j1")), model::SubmitOutcome::unchanged);
  const auto conflict = journal->add_job(job("j1", std::string(64, 'b')));
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.error().kind(), ErrorKind::invalid_argument);
  EXPECT_EQ(conflict.error().message(), "job j1 was already submitted with a different request (sha256 " +
                                            std::string(64, 'a') + "; this one is " + std::string(64, 'b') +
                                            "): a job id names one request; submit the change under a new job_id");
  EXPECT_EQ(journal->jobs()->size(), 1u);
  EXPECT_EQ(event_count(), 1);
}

TEST_F(JournalTest, AJobRecordReadsBack) {
  ASSERT_TRUE(journal->add_job(job("j1")).ok());
  const auto record = journal->job("j1");
  ASSERT_TRUE(record.ok() && record->has_value());
  const JobRecord& j = **record;
  EXPECT_EQ(j.request_json, "{\"job_id\":\"j1\"}");
  EXPECT_EQ(j.credential_path, "/s/slurm/jobs/j1/credentials/ingest_token");
  EXPECT_EQ(j.max_attempts, 2);
  EXPECT_EQ(j.phase, JobPhase::queued);
  EXPECT_EQ(j.desire, model::Desire::run);
  EXPECT_FALSE(j.current_attempt.has_value());
  EXPECT_EQ(j.created_at, "2026-11-30T12:06:14Z");
  EXPECT_FALSE(journal->job("nope")->has_value());
}

TEST_F(JournalTest, DesiresUseCompareAndSet) {
  ASSERT_TRUE(journal->add_job(job("j1")).ok());
  ASSERT_TRUE(journal->set_desire("j1", model::Desire::cancel, "operator asked", 1).ok());
  const Status stale = journal->set_desire("j1", model::Desire::run, "late writer", 1);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.error().message(), "job j1 changed since version 1 (it is at version 2); read it again and retry");
  EXPECT_EQ(journal->job("j1")->value().desire, model::Desire::cancel);
  EXPECT_EQ(journal->set_desire("nope", model::Desire::cancel, "", 1).error().kind(), ErrorKind::not_found);
}

TEST_F(JournalTest, AttemptsMoveOnlyAlongLegalEdgesAndCarryThePhase) {
  walk("j1", {AttemptState::prepared, AttemptState::submitting});
  EXPECT_EQ(journal->job("j1")->value().phase, JobPhase::submitting);
  EXPECT_FALSE(journal->attempts("j1")->front().intent_at.empty());

  const Status illegal = journal->transition({"j1", 1}, AttemptState::submitting, AttemptState::running, {}, {});
  ASSERT_FALSE(illegal.ok());
  EXPECT_EQ(illegal.error().message(), "attempt j1/1: attempt state submitting -> running is not a legal transition");

  AttemptChanges receipt;
  receipt.slurm_job_id = 4242;
  receipt.sluid = "sEE9M8P5JF1X00";
  receipt.server_release = "26.05.3";
  receipt.dialect = "v0.0.45";
  receipt.found_by = "receipt";
  ASSERT_TRUE(journal
                  ->transition({"j1", 1}, AttemptState::submitting, AttemptState::submitted, receipt,
                               {{"reason", "job_id in the submit response"}})
                  .ok());
  const AttemptRecord attempt = journal->attempts("j1")->front();
  EXPECT_EQ(attempt.state, AttemptState::submitted);
  EXPECT_EQ(attempt.slurm_job_id, 4242u);
  EXPECT_EQ(attempt.sluid, "sEE9M8P5JF1X00");
  EXPECT_EQ(attempt.server_release, "26.05.3");
  EXPECT_EQ(journal->job("j1")->value().phase, JobPhase::pending);
}

TEST_F(JournalTest, AStaleWriterCannotMoveAnAttempt) {
  walk("j1", {AttemptState::prepared});
  ASSERT_TRUE(journal->transition({"j1", 1}, AttemptState::prepared, AttemptState::submitting, {}, {}).ok());
  const Status stale = journal->transition({"j1", 1}, AttemptState::prepared, AttemptState::submitting, {}, {});
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.error().message(),
            "attempt j1/1 is submitting, not prepared: another writer moved it; read it again");
}

TEST_F(JournalTest, ALostResponseBlocksAndShowsInTheBlockedView) {
  walk("j1", {AttemptState::prepared, AttemptState::submitting});
  AttemptChanges lost;
  lost.outcome_reason = "POST /slurm/v0.0.45/job/submit: timed out after the request was sent";
  ASSERT_TRUE(journal->transition({"j1", 1}, AttemptState::submitting, AttemptState::submit_unknown, lost, {}).ok());
  EXPECT_FALSE(journal->transition({"j1", 1}, AttemptState::submit_unknown, AttemptState::prepared, {}, {}).ok());
  const auto blocked = journal->blocked();
  ASSERT_TRUE(blocked.ok());
  ASSERT_EQ(blocked->size(), 1u);
  EXPECT_EQ(blocked->front().job_id, "j1");
  EXPECT_EQ(blocked->front().submit_token, "token-j1-1");
  EXPECT_EQ(blocked->front().reason, "POST /slurm/v0.0.45/job/submit: timed out after the request was sent");
  EXPECT_EQ(journal->job("j1")->value().phase, JobPhase::submit_unconfirmed);
}

TEST_F(JournalTest, CleanupRunsInOrderOnlyAfterTheAttemptEnded) {
  walk("j1", {AttemptState::prepared, AttemptState::submitting});
  const Status early = journal->advance_cleanup({"j1", 1}, CleanupStep::none, CleanupStep::staging_pending, {});
  ASSERT_FALSE(early.ok());
  EXPECT_EQ(early.error().message(), "attempt j1/1 is submitting; cleanup starts only when an attempt has ended");
  AttemptChanges receipt;
  receipt.slurm_job_id = 77;
  ASSERT_TRUE(journal->transition({"j1", 1}, AttemptState::submitting, AttemptState::submitted, receipt, {}).ok());
  ASSERT_TRUE(journal->transition({"j1", 1}, AttemptState::submitted, AttemptState::succeeded, {}, {}).ok());
  EXPECT_EQ(journal->cleanup_backlog()->size(), 1u);
  EXPECT_EQ(*journal->live_job_ids(), std::vector<std::string>{"j1"}) << "succeeded, but its cleanup is open";
  EXPECT_FALSE(journal->advance_cleanup({"j1", 1}, CleanupStep::none, CleanupStep::closed, {}).ok());
  ASSERT_TRUE(journal->advance_cleanup({"j1", 1}, CleanupStep::none, CleanupStep::epilog_pending, {}).ok());
  ASSERT_TRUE(journal->advance_cleanup({"j1", 1}, CleanupStep::epilog_pending, CleanupStep::staging_pending, {}).ok());
  ASSERT_TRUE(journal->advance_cleanup({"j1", 1}, CleanupStep::staging_pending, CleanupStep::sealing, {}).ok());
  EXPECT_EQ(journal->cleanup_backlog()->front().cleanup, "sealing");
  ASSERT_TRUE(journal->advance_cleanup({"j1", 1}, CleanupStep::sealing, CleanupStep::closed, {}).ok());
  EXPECT_TRUE(journal->cleanup_backlog()->empty());
  EXPECT_TRUE(journal->live_job_ids()->empty());
}

TEST_F(JournalTest, TheLiveJobsAreTheUnfinishedOnesOldestFirst) {
  walk("j1", {AttemptState::prepared});
  clock.advance(std::chrono::seconds(1));
  ASSERT_TRUE(journal->add_job(job("j2")).ok());
  clock.advance(std::chrono::seconds(1));
  walk("j3", {AttemptState::prepared, AttemptState::submitting, AttemptState::submitted, AttemptState::running});
  ASSERT_TRUE(journal->transition({"j3", 1}, AttemptState::running, AttemptState::failed, {}, {}).ok());
  close_cleanup("j3", 1);
  EXPECT_EQ(*journal->live_job_ids(), (std::vector<std::string>{"j1", "j2"}));
}

TEST_F(JournalTest, TheLiveJobsInSlurmComeBeforeTheOnesNotYetSent) {
  walk("j1", {AttemptState::prepared});
  clock.advance(std::chrono::seconds(1));
  ASSERT_TRUE(journal->add_job(job("j2")).ok());
  clock.advance(std::chrono::seconds(1));
  walk("j3", {AttemptState::prepared, AttemptState::submitting, AttemptState::submitted});
  clock.advance(std::chrono::seconds(1));
  walk("j4", {AttemptState::prepared, AttemptState::submitting});
  clock.advance(std::chrono::seconds(1));
  walk("j5", {AttemptState::prepared, AttemptState::submitting, AttemptState::submit_unknown});
  EXPECT_EQ(*journal->live_job_ids(), (std::vector<std::string>{"j3", "j5", "j1", "j2", "j4"}))
      << "identify, release and the search of what Slurm may have come before new submits";
}

TEST_F(JournalTest, RepeatedReadsSeeWhatAnotherConnectionCommitted) {
  walk("j1", {AttemptState::prepared});
  ASSERT_EQ(journal->attempts("j1")->front().state, AttemptState::prepared);
  ASSERT_EQ(journal->job("j1")->value().phase, JobPhase::queued);
  auto other = Journal::open(dir.file("state/journal.db"), clock);
  ASSERT_TRUE(other.ok()) << other.error().message();
  ASSERT_TRUE((*other)->transition({"j1", 1}, AttemptState::prepared, AttemptState::submitting, {}, {}).ok());
  EXPECT_EQ(journal->attempts("j1")->front().state, AttemptState::submitting) << "no read stays open between calls";
  EXPECT_EQ(journal->job("j1")->value().phase, JobPhase::submitting);
  EXPECT_EQ(*journal->live_job_ids(), std::vector<std::string>{"j1"});
}

TEST_F(JournalTest, ARetryKeepsTheJobQueuedAndNumbersAttemptsInOrder) {
  walk("j1", {AttemptState::prepared, AttemptState::submitting, AttemptState::submitted, AttemptState::running});
  AttemptChanges node_fail;
  node_fail.outcome_reason = "NODE_FAIL";
  node_fail.job_phase = JobPhase::queued;
  ASSERT_TRUE(journal->transition({"j1", 1}, AttemptState::running, AttemptState::failed, node_fail, {}).ok());
  EXPECT_EQ(journal->job("j1")->value().phase, JobPhase::queued);
  close_cleanup("j1", 1);
  EXPECT_FALSE(journal->add_attempt("j1", 3, "t3", "in").ok());
  ASSERT_TRUE(journal->add_attempt("j1", 2, "t2", "in").ok());
  EXPECT_EQ(journal->job("j1")->value().current_attempt, 2);
  EXPECT_EQ(journal->attempts("j1")->size(), 2u);
  EXPECT_EQ(journal->attempts_in(AttemptState::preparing)->size(), 1u);
}

TEST_F(JournalTest, AnIllegalPhaseMoveRollsBackTheAttemptToo) {
  walk("j1", {AttemptState::prepared, AttemptState::submitting, AttemptState::submitted, AttemptState::running});
  ASSERT_TRUE(journal->set_phase("j1", JobPhase::running, JobPhase::cancelled, "operator").ok());
  const auto before = event_count();
  const Status refused = journal->transition({"j1", 1}, AttemptState::running, AttemptState::succeeded, {}, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message(), "job j1: job phase cancelled -> succeeded is not a legal transition");
  EXPECT_EQ(journal->attempts("j1")->back().state, AttemptState::running);
  EXPECT_EQ(event_count(), before);
}

TEST_F(JournalTest, AnEndedJobTakesNoNewAttempt) {
  walk("j1", {AttemptState::prepared, AttemptState::submitting, AttemptState::submitted, AttemptState::running,
              AttemptState::succeeded});
  const auto refused = journal->add_attempt("j1", 2, "t2", "in");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message(), "job j1 has ended (succeeded); it takes no new attempt");
}

TEST_F(JournalTest, TheTimelineTellsTheWholeStory) {
  walk("j1", {AttemptState::prepared, AttemptState::submitting});
  AttemptChanges receipt;
  receipt.slurm_job_id = 12;
  receipt.sluid = "sEE9M8P5JF1X00";
  ASSERT_TRUE(
      journal
          ->transition({"j1", 1}, AttemptState::submitting, AttemptState::submitted, receipt, {{"reason", "receipt"}})
          .ok());
  ASSERT_TRUE(journal->record_event("j1", 1, "evidence", {{"reason", "logs/slurm-job.json found"}}).ok());
  const auto timeline = journal->timeline("j1");
  ASSERT_TRUE(timeline.ok()) << timeline.error().message();
  std::vector<std::string> kinds;
  for (const auto& entry : *timeline) kinds.push_back(entry.kind + ":" + entry.to_state);
  EXPECT_EQ(kinds,
            (std::vector<std::string>{"job.created:queued", "attempt.created:preparing", "attempt.state:prepared",
                                      "attempt.state:submitting", "job.phase:submitting", "attempt.state:submitted",
                                      "job.phase:pending", "evidence:"}));
  EXPECT_EQ(timeline->front().request_sha256, std::string(64, 'a'));
  EXPECT_EQ(timeline->at(1).submit_token, "token-j1-1");
  EXPECT_EQ(timeline->at(5).slurm_job_id, 12);
  EXPECT_EQ(timeline->at(5).sluid, "sEE9M8P5JF1X00");
  EXPECT_EQ(timeline->at(5).reason, "receipt");
  EXPECT_EQ(timeline->back().reason, "logs/slurm-job.json found");
}

TEST_F(JournalTest, EventsAreAppendOnly) {
  walk("j1", {AttemptState::prepared});
  SQLite::Database db(journal->path(), SQLite::OPEN_READWRITE);
  db.exec("PRAGMA recursive_triggers = ON");
  const auto refused = [&](const std::string& sql) {
    try {
      db.exec(sql);
      return std::string("accepted");
    } catch (const SQLite::Exception& e) {
      return std::string(e.what());
    }
  };
  EXPECT_EQ(refused("UPDATE events SET kind = 'forged'"), "events are append-only: UPDATE is not allowed");
  EXPECT_EQ(refused("DELETE FROM events"), "events are append-only: DELETE is not allowed");
  EXPECT_EQ(refused("INSERT OR REPLACE INTO events (seq, at, job_id, kind) VALUES (1, 'x', 'j1', 'forged')"),
            "events are append-only: an existing event cannot be replaced");
  // Even without recursive triggers (a connection that did not set it), REPLACE is refused.
  SQLite::Database plain(journal->path(), SQLite::OPEN_READWRITE);
  EXPECT_THROW(plain.exec("REPLACE INTO events (seq, at, job_id, kind) VALUES (1, 'x', 'j1', 'forged')"),
               SQLite::Exception);
  EXPECT_EQ(db.execAndGet("SELECT kind FROM events WHERE seq = 1").getString(), "job.created");
}

TEST_F(JournalTest, TheHashCacheMatchesOnlyTheSameIdentity) {
  model::HashCache& cache = journal->hash_cache();
  const model::FileIdentity file{"/s/runtimes/a.sqsh", 100, 1, 2, 3};
  EXPECT_FALSE(cache.lookup(file)->has_value());
  ASSERT_TRUE(cache.store(file, std::string(64, 'c')).ok());
  EXPECT_EQ(cache.lookup(file)->value(), std::string(64, 'c'));
  model::FileIdentity touched = file;
  touched.mtime_ns = 9;
  EXPECT_FALSE(cache.lookup(touched)->has_value());
  ASSERT_TRUE(cache.store(touched, std::string(64, 'd')).ok());
  EXPECT_EQ(cache.lookup(touched)->value(), std::string(64, 'd'));
  EXPECT_FALSE(cache.lookup(file)->has_value());
}

TEST_F(JournalTest, BackupIsAConsistentCopyAndNeverOverwrites) {
  walk("j1", {AttemptState::prepared});
  const mode_t before = ::umask(022);  // an operator's shell
  const Status copied = journal->backup(dir.file("copy.db"));
  ::umask(before);
  ASSERT_TRUE(copied.ok()) << copied.error().message();
  struct stat info {};
  ASSERT_EQ(::stat(dir.file("copy.db").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u) << "only the journal's owner reads its copy";
  SQLite::Database copy(dir.file("copy.db"), SQLite::OPEN_READONLY);
  EXPECT_EQ(copy.execAndGet("SELECT count(*) FROM events").getInt(), 3);
  EXPECT_EQ(copy.execAndGet("PRAGMA integrity_check").getString(), "ok");
  const Status again = journal->backup(dir.file("copy.db"));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().message(), dir.file("copy.db") + " already exists; a backup never overwrites a file");
}

TEST(JournalOpenTest, RefusesANetworkFilesystem) {
  TempDir dir;
  const ManualClock clock(from_unix_seconds(0));
  OpenOptions options;
  options.probe_filesystem = [](const std::string&) -> Result<std::optional<std::string>> {
    return std::optional<std::string>("nfs");
  };
  const auto opened = Journal::open(dir.file("journal.db"), clock, options);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.error().message(),
            "journal " + dir.file("journal.db") +
                " is on nfs, a network filesystem: SQLite's WAL needs a local disk (shared memory and POSIX locks); "
                "set TUNEPLANE_JOURNAL or TUNEPLANE_STATE_DIR to a local path");
  EXPECT_FALSE(std::filesystem::exists(dir.file("journal.db")));
}

TEST(JournalOpenTest, NeverCreatesAFreshJournalOverAFileItCannotRead) {
  TempDir dir;
  const ManualClock clock(from_unix_seconds(0));
  testing::write_test_file(dir.file("journal.db"), std::string(4096, 'x'));
  const auto opened = Journal::open(dir.file("journal.db"), clock);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.error().kind(), ErrorKind::corrupt);
  EXPECT_NE(opened.error().message().find("file is not a database"), std::string::npos) << opened.error().message();
  EXPECT_EQ(testing::read_test_file(dir.file("journal.db")), std::string(4096, 'x'));
}

// Makes a file unwritable even for root (whom file modes do not stop): the immutable flag.
class Immutable {
 public:
  explicit Immutable(const std::string& path) : m_path(path) { m_ok = set(true); }
  ~Immutable() { set(false); }
  bool ok() const { return m_ok; }

 private:
  bool set(bool on) {
    const int fd = ::open(m_path.c_str(), O_RDONLY);
    if (fd < 0) return false;
    int flags = 0;
    bool done = ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
    flags = on ? (flags | FS_IMMUTABLE_FL) : (flags & ~FS_IMMUTABLE_FL);
    done = done && ::ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
    ::close(fd);
    return done;
  }
  std::string m_path;
  bool m_ok = false;
};

TEST(JournalOpenTest, ReportsAReadOnlyJournal) {
  TempDir dir;
  const ManualClock clock(from_unix_seconds(0));
  { ASSERT_TRUE(Journal::open(dir.file("journal.db"), clock).ok()); }
  std::filesystem::permissions(dir.file("journal.db"), std::filesystem::perms::owner_read);
  std::optional<Immutable> immutable;
  if (::geteuid() == 0) {
    immutable.emplace(dir.file("journal.db"));
    ASSERT_TRUE(immutable->ok()) << "as root the test needs chattr +i (CAP_LINUX_IMMUTABLE) on " << dir.path();
  }
  const auto opened = Journal::open(dir.file("journal.db"), clock);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.error().message(),
            "journal " + dir.file("journal.db") +
                " is read-only (file mode or filesystem); fix its permissions or point TUNEPLANE_JOURNAL at a "
                "writable local path");
  OpenOptions read_only;
  read_only.mode = OpenOptions::Mode::read_only;
  EXPECT_TRUE(Journal::open(dir.file("journal.db"), clock, read_only).ok());
}

TEST(JournalOpenTest, ReadOnlyOpenOfAMissingJournalSaysHowToCreateIt) {
  TempDir dir;
  const ManualClock clock(from_unix_seconds(0));
  OpenOptions read_only;
  read_only.mode = OpenOptions::Mode::read_only;
  const auto opened = Journal::open(dir.file("journal.db"), clock, read_only);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.error().message(),
            "journal " + dir.file("journal.db") + " does not exist; `tuneplane-slurm migrate` creates it");
}

TEST(JournalOpenTest, AnOutdatedJournalNeedsAnExplicitMigrate) {
  TempDir dir;
  const ManualClock clock(from_unix_seconds(0));
  {
    SQLite::Database db(dir.file("journal.db"), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec(
        "CREATE TABLE schema_migrations (number INTEGER PRIMARY KEY, name TEXT NOT NULL, sha256 TEXT NOT NULL, "
        "applied_at TEXT NOT NULL) STRICT");
  }
  // An empty schema_migrations table is an empty journal: it is created in full.
  EXPECT_TRUE(Journal::open(dir.file("journal.db"), clock).ok());
}

}  // namespace
}  // namespace tpslurm::journal

namespace tpslurm::journal {
namespace {

// `submit` beside a starting `serve`: two processes create the same fresh journal at once.
// Each open migrates; whichever loses the race finds the migrations applied and goes on.
TEST(JournalOpenRaceTest, OpeningAFreshJournalFromSeveralConnectionsAtOnceSucceedsForEach) {
  for (int round = 0; round < 10; ++round) {
    tpslurm::testing::TempDir dir;
    const std::string path = dir.file("journal.db");
    SystemClock clock;
    std::vector<std::string> errors(4);
    std::vector<std::thread> openers;
    for (std::size_t i = 0; i < errors.size(); ++i) {
      openers.emplace_back([&, i] {
        auto opened = Journal::open(path, clock);
        if (!opened.ok()) errors[i] = opened.error().message();
      });
    }
    for (auto& t : openers) t.join();
    for (const auto& e : errors) EXPECT_EQ(e, "") << "round " << round;
  }
}

}  // namespace
}  // namespace tpslurm::journal
