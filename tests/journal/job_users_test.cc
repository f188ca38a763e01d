// Whose each job is: the platform user and the Unix user a job keeps from its acceptance, the
// creation event that names them, a user's limit of live jobs held in the commit, the live jobs
// counted by user for /metrics, and migration 0008 giving older jobs the user their request names.
#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>

#include "journal/embedded_sql.h"
#include "journal/journal.h"
#include "journal/migrator.h"
#include "journal_fixture.h"
#include "support/temp_dir.h"

namespace tpslurm::journal {
namespace {

using model::JobPhase;
using model::SubmitOutcome;

NewJob owned(NewJob job, const std::string& user, const std::string& unix_user, std::optional<int> limit = {}) {
  job.platform_user = user;
  job.unix_user = unix_user;
  job.default_account = "acct-" + user;
  job.max_live_jobs = limit;
  return job;
}

TEST_F(JournalTest, AJobKeepsItsUsersAndItsCreationEventNamesThem) {
  ASSERT_EQ(*journal->add_job(owned(job("u1"), "alice", "alice")), SubmitOutcome::created);
  ASSERT_EQ(*journal->add_job(job("u2")), SubmitOutcome::created);
  const JobRecord alice = **journal->job("u1");
  EXPECT_EQ(alice.platform_user, "alice");
  EXPECT_EQ(alice.unix_user, "alice");
  EXPECT_EQ(alice.default_account, "acct-alice");
  const JobRecord nobody = **journal->job("u2");
  EXPECT_EQ(nobody.platform_user, "");
  EXPECT_EQ(nobody.unix_user, "");

  const auto timeline = journal->timeline("u1");
  ASSERT_TRUE(timeline.ok() && !timeline->empty());
  EXPECT_EQ(timeline->front().user, "alice");
  EXPECT_EQ(timeline->front().unix_user, "alice");
  const auto detail = boost::json::parse(timeline->front().detail).as_object();
  EXPECT_EQ(detail.at("user"), "alice");
  EXPECT_EQ(detail.at("unix_user"), "alice");
  EXPECT_FALSE(boost::json::parse(journal->timeline("u2")->front().detail).as_object().contains("user"));
}

TEST_F(JournalTest, ANewJobOfAUserAtItsLimitIsOverLimitAndWritesNothing) {
  ASSERT_EQ(*journal->add_job(owned(job("a1"), "alice", "alice", 2)), SubmitOutcome::created);
  ASSERT_EQ(*journal->add_job(owned(job("a2"), "alice", "alice", 2)), SubmitOutcome::created);
  ASSERT_EQ(*journal->live_jobs_of("alice"), 2);
  const std::int64_t events = event_count();
  EXPECT_EQ(*journal->add_job(owned(job("a3"), "alice", "alice", 2)), SubmitOutcome::over_limit);
  EXPECT_FALSE(journal->job("a3")->has_value());
  EXPECT_EQ(event_count(), events) << "a refused job journals nothing";
  EXPECT_EQ(*journal->add_job(owned(job("a1"), "alice", "alice", 2)), SubmitOutcome::unchanged)
      << "the same request again is not a new job";
  EXPECT_EQ(*journal->add_job(owned(job("b1"), "bob", "bob", 2)), SubmitOutcome::created) << "another user's count";

  ASSERT_TRUE(journal->set_phase("a1", JobPhase::queued, JobPhase::cancelled, "cancelled").ok());
  EXPECT_EQ(*journal->live_jobs_of("alice"), 1) << "an ended job is not live";
  EXPECT_EQ(*journal->add_job(owned(job("a3"), "alice", "alice", 2)), SubmitOutcome::created);
  EXPECT_EQ(*journal->add_job(owned(job("a4"), "alice", "alice")), SubmitOutcome::created) << "no limit";
}

TEST_F(JournalTest, GaugesByUserCountEachUsersLiveJobs) {
  ASSERT_TRUE(journal->add_job(owned(job("a1"), "alice", "alice")).ok());
  ASSERT_TRUE(journal->add_job(owned(job("a2"), "alice", "alice")).ok());
  ASSERT_TRUE(journal->add_job(owned(job("b1"), "bob", "bob")).ok());
  ASSERT_TRUE(journal->add_job(job("n1")).ok());
  ASSERT_TRUE(journal->set_phase("b1", JobPhase::queued, JobPhase::failed, "refused").ok());
  EXPECT_TRUE(journal->gauges()->live_jobs_by_user.empty()) << "only when asked";
  const auto gauges = journal->gauges(true);
  ASSERT_TRUE(gauges.ok()) << gauges.error().message();
  const std::map<std::string, std::int64_t> by_user(gauges->live_jobs_by_user.begin(), gauges->live_jobs_by_user.end());
  EXPECT_EQ(by_user, (std::map<std::string, std::int64_t>{{"alice", 2}}));
}

// A journal of the migrations before 0008 holding jobs with and without a user in their
// request: the migration gives each the user its request names.
TEST(JobUsersMigrationTest, JobsAcceptedBeforeTheColumnsGetTheUserTheirRequestNames) {
  const ManualClock clock(from_unix_seconds(1796040374));
  tpslurm::testing::TempDir dir;
  SQLite::Database db(dir.file("journal.db"), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  auto migrations = load_migrations(embedded_migrations());
  ASSERT_TRUE(migrations.ok());
  const auto before = std::find_if(migrations->begin(), migrations->end(),
                                   [](const Migration& m) { return m.name == "0008_job_users"; });
  ASSERT_NE(before, migrations->end());
  ASSERT_TRUE(migrate(db, std::vector<Migration>(migrations->begin(), before), clock).ok());
  db.exec(R"(INSERT INTO jobs (job_id, request_json, request_sha256, created_at, updated_at) VALUES
             ('old-1', '{"job_id":"old-1","user":"alice"}', 'h1', 't', 't'),
             ('old-2', '{"job_id":"old-2"}', 'h2', 't', 't'),
             ('old-3', '{"job_id":"old-3","user":7}', 'h3', 't', 't'))");
  ASSERT_TRUE(migrate(db, *migrations, clock).ok());
  SQLite::Statement rows(db, "SELECT job_id, platform_user IS NULL, coalesce(platform_user, ''), "
                             "unix_user IS NULL AND default_account IS NULL FROM jobs ORDER BY job_id");
  std::vector<std::string> seen;
  while (rows.executeStep()) {
    seen.push_back(rows.getColumn(0).getString() + ":" + (rows.getColumn(1).getInt() ? "null" : rows.getColumn(2).getString()) +
                   ":" + (rows.getColumn(3).getInt() ? "null" : "set"));
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"old-1:alice:null", "old-2:null:null", "old-3:null:null"}));
}

}  // namespace
}  // namespace tpslurm::journal
