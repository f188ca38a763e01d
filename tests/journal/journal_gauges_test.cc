// Journal::gauges(): the open attempts counted by state and cleanup step, with the oldest
// intent of each group, and the journal's size on disk, on a real journal.
#include <sys/stat.h>

#include <map>
#include <utility>

#include "journal_fixture.h"

namespace tpslurm::journal {
namespace {

using model::AttemptState;
using model::CleanupStep;

std::int64_t size_of(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 ? static_cast<std::int64_t>(info.st_size) : 0;
}

TEST_F(JournalTest, GaugesCountTheOpenAttemptsByStateAndCleanupWithTheOldestIntent) {
  const std::string first_intent = format_utc(clock.now());
  walk("blocked-1", {AttemptState::prepared, AttemptState::submitting, AttemptState::submit_unknown});
  clock.advance(std::chrono::seconds(100));
  walk("blocked-2", {AttemptState::prepared, AttemptState::submitting, AttemptState::submit_unknown});
  walk("runs", {AttemptState::prepared, AttemptState::submitting, AttemptState::submitted, AttemptState::running});
  walk("ended", {AttemptState::prepared, AttemptState::submitting, AttemptState::submitted, AttemptState::succeeded});
  ASSERT_TRUE(journal->advance_cleanup({"ended", 1}, CleanupStep::none, CleanupStep::epilog_pending, {}).ok());
  walk("closed", {AttemptState::prepared, AttemptState::submitting, AttemptState::submitted, AttemptState::failed});
  close_cleanup("closed", 1);
  walk("new", {});

  const auto gauges = journal->gauges();
  ASSERT_TRUE(gauges.ok()) << gauges.error().message();
  std::map<std::pair<AttemptState, CleanupStep>, AttemptGroup> groups;
  for (const auto& group : gauges->open_attempts) groups[{group.state, group.cleanup}] = group;
  ASSERT_EQ(groups.size(), 4u) << "the closed attempt is not open";
  const AttemptGroup& blocked = groups[{AttemptState::submit_unknown, CleanupStep::none}];
  EXPECT_EQ(blocked.count, 2);
  EXPECT_EQ(blocked.oldest_intent_at, first_intent);
  EXPECT_EQ((groups[{AttemptState::running, CleanupStep::none}].count), 1);
  EXPECT_EQ((groups[{AttemptState::succeeded, CleanupStep::epilog_pending}].count), 1);
  EXPECT_EQ((groups[{AttemptState::preparing, CleanupStep::none}].count), 1);
  EXPECT_EQ((groups[{AttemptState::preparing, CleanupStep::none}].oldest_intent_at), "") << "no intent yet";
  EXPECT_EQ(groups.count({AttemptState::failed, CleanupStep::closed}), 0u);

  EXPECT_GT(gauges->file_bytes, 0);
  EXPECT_EQ(gauges->file_bytes, size_of(journal->path()) + size_of(journal->path() + "-wal"));
}

TEST_F(JournalTest, GaugesOfAnEmptyJournalHoldNoGroupsButItsSize) {
  const auto gauges = journal->gauges();
  ASSERT_TRUE(gauges.ok()) << gauges.error().message();
  EXPECT_TRUE(gauges->open_attempts.empty());
  EXPECT_EQ(gauges->file_bytes, size_of(journal->path()) + size_of(journal->path() + "-wal"));
}

}  // namespace
}  // namespace tpslurm::journal
