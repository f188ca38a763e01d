// JournalTest: a fresh journal in a temporary state directory, and helpers that walk jobs and
// attempts along legal paths, for the journal's tests.
#pragma once

#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>

#include <initializer_list>
#include <memory>
#include <string>

#include "journal/journal.h"
#include "support/temp_dir.h"

namespace tpslurm::journal {

class JournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = Journal::open(dir.file("state/journal.db"), clock);
    ASSERT_TRUE(opened.ok()) << opened.error().message();
    journal = std::move(*opened);
  }

  NewJob job(const std::string& id, const std::string& hash = std::string(64, 'a'), int max_attempts = 2) {
    return {id, "{\"job_id\":\"" + id + "\"}", hash, "/s/slurm/jobs/" + id + "/credentials/ingest_token", "hmac",
            max_attempts};
  }

  // A new job with attempt 1 moved through `states` in order.
  void walk(const std::string& id, std::initializer_list<model::AttemptState> states) {
    ASSERT_TRUE(journal->add_job(job(id)).ok());
    walk_attempt(id, 1, states);
  }

  // Adds attempt `number` of an existing job and moves it through `states`; `submitted`
  // comes with Slurm job id 1000 + number, as from a receipt.
  void walk_attempt(const std::string& id, int number, std::initializer_list<model::AttemptState> states) {
    const auto added = journal->add_attempt(id, number, "token-" + id + "-" + std::to_string(number), "input");
    ASSERT_TRUE(added.ok()) << added.error().message();
    model::AttemptState at = model::AttemptState::preparing;
    for (const model::AttemptState next : states) {
      AttemptChanges changes;
      if (next == model::AttemptState::submitted) changes.slurm_job_id = 1000 + number;
      const Status moved = journal->transition({id, number}, at, next, changes, {});
      ASSERT_TRUE(moved.ok()) << moved.error().message();
      at = next;
    }
  }

  // The changes of a failure worth retrying: the job goes back to queued.
  static AttemptChanges retryable() {
    AttemptChanges changes;
    changes.outcome_reason = "NODE_FAIL";
    changes.job_phase = model::JobPhase::queued;
    return changes;
  }

  // Ends attempt `number`, now in `at`, as a failure worth retrying and closes its cleanup.
  void end_for_retry(const std::string& id, int number, model::AttemptState at) {
    const Status failed = journal->transition({id, number}, at, model::AttemptState::failed, retryable(), {});
    ASSERT_TRUE(failed.ok()) << failed.error().message();
    close_cleanup(id, number);
  }

  // Runs an ended attempt's cleanup from none to closed.
  void close_cleanup(const std::string& id, int number) {
    using model::CleanupStep;
    const CleanupStep steps[] = {CleanupStep::none, CleanupStep::staging_pending, CleanupStep::sealing,
                                 CleanupStep::closed};
    for (std::size_t i = 1; i < std::size(steps); ++i) {
      const Status moved = journal->advance_cleanup({id, number}, steps[i - 1], steps[i], {});
      ASSERT_TRUE(moved.ok()) << moved.error().message();
    }
  }

  std::int64_t event_count() {
    SQLite::Database db(journal->path(), SQLite::OPEN_READONLY);
    return db.execAndGet("SELECT count(*) FROM events").getInt64();
  }

  testing::TempDir dir;
  ManualClock clock{from_unix_seconds(1796040374)};
  std::unique_ptr<Journal> journal;
};

}  // namespace tpslurm::journal
