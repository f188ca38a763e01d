// Pending, explained, against the simulator in every dialect: a pending attempt's reason and
// Slurm's expected start reach the journal, the job's view and the change feed; a new reason or
// an estimate that moved at the scale of the wait left is one event, seconds of drift are none,
// and no call is made for them (the cycle's listing, or v0.0.38's bulk answer, brings them).
#include "journal/components.h"
#include "operations/change_feed.h"
#include "operations/job_views.h"
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

INSTANTIATE_TEST_SUITE_P(Releases, PendingWaitTest, every_release(), release_test_name);

}  // namespace
}  // namespace tpslurm::reconcile::testing
