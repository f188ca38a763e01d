// The controller's work queue is fair: jobs woken again and again never starve the ones
// queued behind them, and a job woken while its pass runs gets another pass.
#include "reconcile/work_queue.h"

#include <gtest/gtest.h>

namespace tpslurm::reconcile {
namespace {

using Time = WorkQueue::Time;

TEST(WorkQueueTest, JobsWokenAgainKeepTheirPlaceSoNoneStarves) {
  WorkQueue queue;
  const Time now{};
  for (const char* job : {"a", "b", "c", "d"}) queue.wake(job);
  ASSERT_EQ(queue.next(now), "a");
  queue.done("a");
  // Every cycle wakes every job: "a" goes to the back, "b".."d" keep their places.
  for (const char* job : {"a", "b", "c", "d"}) queue.wake(job);
  EXPECT_EQ(queue.next(now), "b");
  EXPECT_EQ(queue.next(now), "c");
  EXPECT_EQ(queue.next(now), "d");
  EXPECT_EQ(queue.next(now), "a");
  EXPECT_EQ(queue.next(now), std::nullopt);
}

TEST(WorkQueueTest, AJobIsNeverPassedTwiceAtOnceButAWakeDuringItsPassIsKept) {
  WorkQueue queue;
  const Time now{};
  queue.wake("a");
  ASSERT_EQ(queue.next(now), "a");
  queue.wake("a");  // a cancel arrived while the pass runs
  EXPECT_EQ(queue.next(now), std::nullopt);
  EXPECT_EQ(queue.running(), 1u);
  queue.done("a");
  EXPECT_EQ(queue.next(now), "a");
}

TEST(WorkQueueTest, ABackOffWakesTheJobWhenItsTimeHasCome) {
  WorkQueue queue;
  const Time now{};
  queue.wake_at("a", now + std::chrono::seconds(5));
  EXPECT_EQ(queue.next(now), std::nullopt);
  EXPECT_EQ(queue.next(now + std::chrono::seconds(5)), "a");
}

}  // namespace
}  // namespace tpslurm::reconcile
