// Sweeps in the journal: a sweep and all its jobs in one transaction, idempotent by sweep_id,
// a taken job id refusing the whole sweep, every run counted toward the user's limit, and
// migration 0010 on a journal at 0009.
#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "journal/embedded_sql.h"
#include "journal/journal.h"
#include "journal/migrator.h"
#include "journal_fixture.h"
#include "support/temp_dir.h"

namespace tpslurm::journal {
namespace {

using model::JobPhase;
using model::SubmitOutcome;

class SweepJournalTest : public JournalTest {
 protected:
  NewSweep sweep(const std::string& id, std::initializer_list<std::string> job_ids,
                 const std::string& hash = std::string(64, 's')) {
    NewSweep out{id, hash, 2, "alice", std::nullopt, {}};
    for (const std::string& job_id : job_ids) {
      NewJob run = job(job_id);
      run.platform_user = "alice";
      out.jobs.push_back(run);
    }
    return out;
  }

  std::int64_t count(const std::string& sql) {
    SQLite::Database db(journal->path(), SQLite::OPEN_READONLY);
    return db.execAndGet(sql).getInt64();
  }
};

TEST_F(SweepJournalTest, ASweepAndItsJobsAreJournaledTogetherInOrder) {
  auto added = journal->add_sweep(sweep("sw", {"r-b", "r-a", "r-c"}), "platform");
  ASSERT_TRUE(added.ok()) << added.error().message();
  EXPECT_EQ(*added, SubmitOutcome::created);
  auto read = journal->sweep("sw");
  ASSERT_TRUE(read.ok() && read->has_value());
  const SweepRecord& record = **read;
  EXPECT_EQ(record.run_count, 3);
  EXPECT_EQ(record.max_running, 2);
  EXPECT_EQ(record.platform_user, "alice");
  EXPECT_EQ(record.submitted_by, "platform");
  ASSERT_EQ(record.runs.size(), 3u);
  EXPECT_EQ(record.runs[0].job_id, "r-b") << "the sweep's order, not the ids'";
  EXPECT_EQ(record.runs[1].job_id, "r-a");
  EXPECT_EQ(record.runs[2].job_id, "r-c");
  EXPECT_EQ(record.runs[2].phase, JobPhase::queued);
  EXPECT_EQ(count("SELECT sweep_index FROM jobs WHERE job_id = 'r-c'"), 2);
  EXPECT_EQ(count("SELECT count(*) FROM events WHERE kind = 'job.created' AND "
                  "json_extract(detail, '$.sweep_id') = 'sw'"),
            3);
  EXPECT_FALSE(journal->sweep("other")->has_value());
}

TEST_F(SweepJournalTest, TheSameSweepAgainIsUnchangedAndADifferentOneAConflict) {
  ASSERT_EQ(*journal->add_sweep(sweep("sw", {"r1", "r2"})), SubmitOutcome::created);
  const std::int64_t events = event_count();
  NewSweep again = sweep("sw", {"r1", "r2"});
  again.jobs[0].credential_path = "/elsewhere";
  EXPECT_EQ(*journal->add_sweep(again), SubmitOutcome::unchanged);
  EXPECT_EQ((*journal->job("r1"))->credential_path, "/s/slurm/jobs/r1/credentials/ingest_token");
  EXPECT_EQ(event_count(), events);

  auto different = journal->add_sweep(sweep("sw", {"r1", "r2", "r3"}, std::string(64, 'd')));
  ASSERT_FALSE(different.ok());
  EXPECT_EQ(different.error().kind(), ErrorKind::invalid_argument);
  EXPECT_NE(different.error().message().find("sweep sw was already submitted with a different request"),
            std::string::npos);
  EXPECT_FALSE(journal->job("r3")->has_value());
  EXPECT_EQ(event_count(), events);
}

TEST_F(SweepJournalTest, ARunWhoseJobIdIsTakenJournalsNothingOfTheSweep) {
  ASSERT_EQ(*journal->add_job(job("taken")), SubmitOutcome::created);
  const std::int64_t events = event_count();
  auto refused = journal->add_sweep(sweep("sw", {"fresh-1", "taken", "fresh-2"}));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message(),
            "runs[1].job_id \"taken\" is already a job, not of sweep sw: a job id names one job; give the run a new "
            "job_id");
  EXPECT_FALSE(journal->sweep("sw")->has_value());
  EXPECT_FALSE(journal->job("fresh-1")->has_value());
  EXPECT_EQ(event_count(), events);
}

TEST_F(SweepJournalTest, AFailingRunInAGroupLeavesTheGroupsOtherWrites) {
  ASSERT_EQ(*journal->add_job(job("taken")), SubmitOutcome::created);
  ASSERT_TRUE(journal->begin_group().ok());
  EXPECT_TRUE(journal->add_job(job("alone")).ok());
  EXPECT_FALSE(journal->add_sweep(sweep("sw", {"fresh", "taken"})).ok());
  ASSERT_TRUE(journal->end_group().ok());
  EXPECT_TRUE(journal->job("alone")->has_value());
  EXPECT_FALSE(journal->job("fresh")->has_value());
  EXPECT_EQ(count("SELECT count(*) FROM sweeps"), 0);
}

TEST_F(SweepJournalTest, EveryRunCountsTowardTheUsersLimit) {
  NewJob live = job("live");
  live.platform_user = "alice";
  ASSERT_EQ(*journal->add_job(live), SubmitOutcome::created);
  NewSweep three = sweep("sw", {"a", "b", "c"});
  three.max_live_jobs = 3;
  EXPECT_EQ(*journal->add_sweep(three), SubmitOutcome::over_limit);
  EXPECT_FALSE(journal->sweep("sw")->has_value());
  EXPECT_FALSE(journal->job("a")->has_value());
  three.max_live_jobs = 4;
  EXPECT_EQ(*journal->add_sweep(three), SubmitOutcome::created);
}

std::string schema_text(SQLite::Database& db) {
  std::string out;
  SQLite::Statement query(db,
                          "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
                          "AND type IN ('table', 'index', 'trigger') ORDER BY type, name");
  while (query.executeStep()) out += query.getColumn(0).getString() + ";\n";
  return out;
}

TEST(SweepsMigrationTest, AJournalAt0009GetsTheSchemaOfAFreshOneAndKeepsItsJobs) {
  const ManualClock clock(from_unix_seconds(0));
  auto migrations = load_migrations(embedded_migrations());
  ASSERT_TRUE(migrations.ok());
  const auto sweeps = std::find_if(migrations->begin(), migrations->end(),
                                   [](const Migration& m) { return m.name == "0010_sweeps"; });
  ASSERT_NE(sweeps, migrations->end());
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  ASSERT_TRUE(migrate(db, std::vector<Migration>(migrations->begin(), sweeps), clock).ok());
  db.exec(
      "INSERT INTO jobs (job_id, request_json, request_sha256, created_at, updated_at) "
      "VALUES ('old', '{}', 'h', 't', 't')");
  auto status = migrate(db, *migrations, clock);
  ASSERT_TRUE(status.ok()) << status.error().message();
  EXPECT_EQ(status->applied, 10);
  EXPECT_TRUE(db.execAndGet("SELECT sweep_id IS NULL AND sweep_index IS NULL FROM jobs WHERE job_id = 'old'").getInt());

  SQLite::Database fresh(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  ASSERT_TRUE(migrate(fresh, *migrations, clock).ok());
  EXPECT_EQ(schema_text(db), schema_text(fresh));
}

}  // namespace
}  // namespace tpslurm::journal
