#include "model/attempt_sequence.h"

#include <gtest/gtest.h>

namespace tpslurm::model {
namespace {

std::string refusal(const AttemptHistory& history, int number) {
  const Status status = check_next_attempt("j1", history, number);
  return status.ok() ? "ok" : status.error().message();
}

TEST(AttemptSequenceTest, TheFirstAttemptIsOne) {
  EXPECT_EQ(refusal({1, 0, std::nullopt}, 1), "ok");
  EXPECT_EQ(refusal({1, 0, std::nullopt}, 2), "job j1: the next attempt is 1, not 2");
}

TEST(AttemptSequenceTest, ALiveAttemptBlocksTheNext) {
  EXPECT_EQ(refusal({3, 1, UnclosedAttempt{1, AttemptState::running, CleanupStep::none}}, 2),
            "job j1: attempt 1 is still running; the next attempt starts only after it has ended and its cleanup is "
            "closed");
}

TEST(AttemptSequenceTest, AnEndedAttemptBlocksTheNextUntilItsCleanupIsClosed) {
  EXPECT_EQ(refusal({3, 1, UnclosedAttempt{1, AttemptState::failed, CleanupStep::staging_pending}}, 2),
            "job j1: attempt 1 has ended (failed) but its cleanup is staging_pending; the next attempt starts only "
            "after the cleanup is closed");
  EXPECT_EQ(refusal({3, 1, std::nullopt}, 2), "ok");
}

TEST(AttemptSequenceTest, NeverMoreThanMaxAttempts) {
  EXPECT_EQ(refusal({2, 2, std::nullopt}, 3),
            "job j1 has made all its attempts (spec.retry.max_attempts is 2); it takes no new attempt");
  EXPECT_EQ(refusal({1, 1, std::nullopt}, 2),
            "job j1 has made all its attempts (spec.retry.max_attempts is 1); it takes no new attempt");
}

}  // namespace
}  // namespace tpslurm::model
