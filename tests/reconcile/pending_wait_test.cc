// Pending, explained, against the simulator in every dialect: a pending attempt's reason and
// Slurm's expected start reach the journal, the job's view and the change feed; a new reason or
// an estimate that moved at the scale of the wait left is one event, seconds of drift are none;
// a reason Slurm gives later shows within two polls, and reading reasons costs a few reads a
// poll or one listing a minute (reconcile/reason_reads.h).
#include "journal/components.h"
#include "operations/change_feed.h"
#include "operations/job_views.h"
#include "reconcile/reason_reads.h"
#include "reconcile_fixture.h"

namespace tpslurm::reconcile::testing {
namespace {

using model::AttemptState;
using std::chrono::hours;
using std::chrono::seconds;

// A JSON string's text; "(null)" for null, so that a wrong kind shows in the failure.
std::string text(const boost::json::value& v) { return v.is_string() ? std::string(v.as_string()) : "(null)"; }

class PendingWaitTest : public ReconcileTest, public ::testing::WithParamInterface<const char*> {
 protected:
  // Steps the job in the simulator, then runs a first cycle of a new daemon: its poll reads
  // every pending job's record (reasons and estimates) in every dialect.
  void show(std::uint32_t id, const std::string& body) {
    step(id, body);
    restart();
    once();
  }
  static std::int64_t unix_at(std::chrono::system_clock::duration from_now) {
    return unix_seconds(std::chrono::system_clock::now() + from_now);
  }
  boost::json::object pending_view(const std::string& job_id) {
    auto view = operations::job_status(journal(), job_id);
    EXPECT_TRUE(view.ok() && view->has_value());
    const auto& attempts = (**view).at("attempts").as_array();
    const auto& pending = attempts.back().as_object().at("pending");
    return pending.is_object() ? pending.as_object() : boost::json::object{};
  }
  std::vector<boost::json::object> feed_items(const std::string& job_id, const std::string& change) {
    auto page = operations::feed_page(journal(), 0, 1000);
    EXPECT_TRUE(page.ok());
    std::vector<boost::json::object> out;
    for (const auto& item : page->at("events").as_array()) {
      const auto& o = item.as_object();
      if (text(o.at("job_id")) == job_id && text(o.at("change")) == change) out.push_back(o);
    }
    return out;
  }
};

TEST_P(PendingWaitTest, TheReasonAndTheExpectedStartReachTheViewAndTheFeedAsTheyChange) {
  start({"--release", GetParam()}, "auto");
  add_job("j1", Shape::cpu_only);
  once();
  ASSERT_EQ(attempt("j1").state, AttemptState::pending);
  const std::uint32_t id = *attempt("j1").slurm_job_id;
  const std::int64_t two_hours = unix_at(hours(2));

  show(id, R"({"reason": "Resources", "expected_start": )" + std::to_string(two_hours) + "}");
  EXPECT_EQ(count_events("j1", "attempt.pending"), 1);
  auto components = journal::parse_components(attempt("j1").components);
  ASSERT_EQ(components.size(), 1u);
  EXPECT_EQ(components[0].reason, "Resources");
  EXPECT_EQ(journal::expected_start(components), from_unix_seconds(two_hours));
  boost::json::object view = pending_view("j1");
  ASSERT_FALSE(view.empty()) << "a pending attempt's view says why it waits";
  EXPECT_EQ(text(view.at("expected_start")), format_utc(from_unix_seconds(two_hours)));
  const auto& wait = view.at("components").as_array().at(0).as_object();
  EXPECT_EQ(text(wait.at("reason")), "Resources");
  EXPECT_NE(text(wait.at("explanation")).find("in use by other jobs"), std::string::npos);
  EXPECT_FALSE(wait.at("what_to_change").is_null());
  auto items = feed_items("j1", "pending");
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(text(items[0].at("reason")), "Resources");
  EXPECT_EQ(text(items[0].at("expected_start")), format_utc(from_unix_seconds(two_hours)));
  EXPECT_NE(text(items[0].at("explanation")).find("in use by other jobs"), std::string::npos);

  // Forty seconds of drift: nothing journaled, the old estimate kept.
  show(id, R"({"expected_start": )" + std::to_string(two_hours + 40) + "}");
  EXPECT_EQ(count_events("j1", "attempt.pending"), 1);
  EXPECT_EQ(journal::expected_start(journal::parse_components(attempt("j1").components)), from_unix_seconds(two_hours));

  // Three hours later than thought: news.
  show(id, R"({"expected_start": )" + std::to_string(two_hours + 3 * 3600) + "}");
  EXPECT_EQ(count_events("j1", "attempt.pending"), 2);
  EXPECT_EQ(text(pending_view("j1").at("expected_start")), format_utc(from_unix_seconds(two_hours + 3 * 3600)));

  // A limit of the account: a new reason, explained; the estimate gone.
  show(id, R"({"reason": "AssocGrpGRES", "expected_start": 0})");
  EXPECT_EQ(count_events("j1", "attempt.pending"), 3);
  view = pending_view("j1");
  EXPECT_TRUE(view.at("expected_start").is_null());
  EXPECT_NE(text(view.at("components").as_array().at(0).at("explanation")).find("its account's limit on GPUs"),
            std::string::npos);
  items = feed_items("j1", "pending");
  ASSERT_EQ(items.size(), 3u);
  EXPECT_TRUE(items[2].at("expected_start").is_null());

  // Running: no wait to show.
  show(id, R"({"state": "RUNNING"})");
  EXPECT_EQ(attempt("j1").state, AttemptState::running);
  EXPECT_TRUE(pending_view("j1").empty());
}

TEST_P(PendingWaitTest, AJobSlurmHasNotLookedAtYetIsNoItem) {
  start({"--release", GetParam()}, "auto");
  add_job("fresh", Shape::cpu_only);
  once();
  ASSERT_EQ(attempt("fresh").state, AttemptState::pending);
  EXPECT_EQ(slurm_jobs("fresh").at(0).state_reason, "None");
  EXPECT_TRUE(feed_items("fresh", "pending").empty()) << "reason None: Slurm has not looked at it yet";
  EXPECT_EQ(count_events("fresh", "attempt.pending"), 0);
}

// A reason Slurm gives while the daemon runs (no restart): read again 20 s after the last read,
// so it shows within two polls of 10 s.
TEST_P(PendingWaitTest, AReasonSlurmGivesLaterShowsWithinTwoPolls) {
  start({"--release", GetParam()}, "auto");
  add_job("j1", Shape::cpu_only);
  once();
  ASSERT_EQ(attempt("j1").state, AttemptState::pending);
  ASSERT_EQ(count_events("j1", "attempt.pending"), 0) << "reason None: nothing to say yet";
  step(*attempt("j1").slurm_job_id, R"({"reason": "Resources"})");
  for (int poll = 0; poll < 2; ++poll) {
    pass_local_time(seconds(10));
    once();
  }
  EXPECT_EQ(count_events("j1", "attempt.pending"), 1);
  EXPECT_EQ(text(pending_view("j1").at("components").as_array().at(0).at("reason")), "Resources");
}

INSTANTIATE_TEST_SUITE_P(Releases, PendingWaitTest, every_release(), release_test_name);

// What reading reasons costs on 26.05: a few due attempts are read alone; when more are due
// than a poll reads alone, one full listing a minute answers for all of them.
class PendingWaitCostTest : public ReconcileTest {
 protected:
  std::int64_t reads() { return sim->route_count("GET /slurm/v0.0.45/job/{job_id}"); }
  std::int64_t listings() { return sim->route_count("GET /slurm/v0.0.45/jobs"); }
};

TEST_F(PendingWaitCostTest, AFewReadsAPollOrOneListingAMinute) {
  start();
  const int count = static_cast<int>(kReadsPerPoll) + 2;
  for (int i = 0; i < count; ++i) add_job("j" + std::to_string(i), Shape::cpu_only);
  const auto all_pending = [&] {
    for (int i = 0; i < count; ++i) {
      auto attempts = journal().attempts("j" + std::to_string(i));
      if (!attempts.ok() || attempts->empty() || attempts->back().state != AttemptState::pending) return false;
    }
    return true;
  };
  for (int cycle = 0; cycle < 5 && !all_pending(); ++cycle) once();
  for (int i = 0; i < count; ++i) {
    const std::string job = "j" + std::to_string(i);
    ASSERT_EQ(attempt(job).state, AttemptState::pending) << job;
    step(*attempt(job).slurm_job_id, R"({"reason": "Priority"})");
  }
  const auto explained = [&] {
    int n = 0;
    for (int i = 0; i < count; ++i) n += count_events("j" + std::to_string(i), "attempt.pending");
    return n;
  };

  // 20 s on, all are due, more than a poll reads alone: one listing answers for all of them.
  const std::int64_t reads_before = reads();
  const std::int64_t listings_before = listings();
  pass_local_time(seconds(20));
  once();
  EXPECT_EQ(listings() - listings_before, 1);
  EXPECT_EQ(reads() - reads_before, 0);
  EXPECT_EQ(explained(), count) << "every reason at the first poll it is due";

  // A minute on, every reason is due again: one more listing, no read alone.
  for (int i = 0; i < count; ++i) step(*attempt("j" + std::to_string(i)).slurm_job_id, R"({"reason": "Resources"})");
  pass_local_time(kExplainedEvery);
  once();
  EXPECT_EQ(listings() - listings_before, 2);
  EXPECT_EQ(reads() - reads_before, 0);
  EXPECT_EQ(explained(), 2 * count);

  // Two new jobs, given a reason after their first read: 20 s on, only they are due, and each
  // is read alone.
  add_job("late0", Shape::cpu_only);
  add_job("late1", Shape::cpu_only);
  once();
  ASSERT_EQ(attempt("late1").state, AttemptState::pending);
  for (const char* late : {"late0", "late1"}) step(*attempt(late).slurm_job_id, R"({"reason": "Priority"})");
  const std::int64_t reads_then = reads();
  pass_local_time(seconds(20));
  once();
  EXPECT_EQ(reads() - reads_then, 2);
  EXPECT_EQ(listings() - listings_before, 2);
  EXPECT_EQ(count_events("late0", "attempt.pending") + count_events("late1", "attempt.pending"), 2);
}

}  // namespace
}  // namespace tpslurm::reconcile::testing
