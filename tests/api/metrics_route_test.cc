// GET /metrics on the real server over a real journal: the bearer token like every route
// but /healthz, Prometheus' content type, the journal's gauges read at the scrape (every state
// and open cleanup step, zeros too) beside what the process recorded; 404 without metrics.
#include "api_fixture.h"
#include "support/exposition.h"

namespace tpslurm::api::testing {
namespace {

using model::AttemptState;
using model::CleanupStep;
using tpslurm::testing::Exposition;

class MetricsRouteTest : public ApiFixture {
 protected:
  // A job with attempt 1 moved through `states`; `submitted` with Slurm job id 77.
  void walk(journal::Journal& journal, const std::string& id, std::initializer_list<AttemptState> states) {
    ASSERT_TRUE(journal.add_job({id, "{}", std::string(64, 'a'), "/c/" + id, "hmac", 1}).ok());
    ASSERT_TRUE(journal.add_attempt(id, 1, "token-" + id, "input").ok());
    AttemptState at = AttemptState::preparing;
    for (AttemptState next : states) {
      journal::AttemptChanges changes;
      if (next == AttemptState::submitted) changes.slurm_job_id = 77;
      const Status moved = journal.transition({id, 1}, at, next, changes, {});
      ASSERT_TRUE(moved.ok()) << moved.error().message();
      at = next;
    }
  }

  SystemClock m_clock;
  metrics::Metrics m_metrics{m_clock};
};

TEST_F(MetricsRouteTest, NeedsTheTokenAndShowsTheJournalsGaugesWithWhatWasRecorded) {
  metrics = &m_metrics;
  start();
  auto journal = open_journal();
  walk(*journal, "blocked", {AttemptState::prepared, AttemptState::submitting, AttemptState::submit_unknown});
  walk(*journal, "runs",
       {AttemptState::prepared, AttemptState::submitting, AttemptState::submitted, AttemptState::running});
  walk(*journal, "ended",
       {AttemptState::prepared, AttemptState::submitting, AttemptState::submitted, AttemptState::succeeded});
  ASSERT_TRUE(journal->advance_cleanup({"ended", 1}, CleanupStep::none, CleanupStep::epilog_pending, {}).ok());
  m_metrics.count_submit_outcome("ok");

  for (const std::string& token : {std::string(), std::string("not-a-token-of-the-file")}) {
    const auto refused = call("GET", "/metrics", token);
    EXPECT_EQ(refused.status, 401) << token;
    EXPECT_EQ(refused.body.find("tuneplane_"), std::string::npos);
  }
  EXPECT_EQ(call("POST", "/metrics", kAliceToken).status, 405);

  const auto answer = call("GET", "/metrics", kAliceToken);
  ASSERT_EQ(answer.status, 200) << answer.body;
  EXPECT_EQ(answer.headers.at("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  const Exposition e = tpslurm::testing::parse_exposition(answer.body);
  EXPECT_TRUE(e.bad_lines.empty()) << e.bad_lines.front();
  EXPECT_EQ(e.value("tuneplane_attempts", {{"state", "submit_unknown"}}), 1);
  EXPECT_EQ(e.value("tuneplane_attempts", {{"state", "running"}}), 1);
  EXPECT_EQ(e.value("tuneplane_attempts", {{"state", "succeeded"}}), 1);
  EXPECT_EQ(e.value("tuneplane_attempts", {{"state", "failed"}}), 0);
  EXPECT_EQ(e.all("tuneplane_attempts").size(), std::size(model::kAllAttemptStates));
  EXPECT_EQ(e.value("tuneplane_cleanup_backlog", {{"step", "epilog_pending"}}), 1);
  EXPECT_EQ(e.value("tuneplane_cleanup_backlog", {{"step", "none"}}), 0);
  EXPECT_EQ(e.all("tuneplane_cleanup_backlog").size(), 4u) << "every step but closed";
  EXPECT_EQ(e.value("tuneplane_blocked_submissions"), 1);
  const auto age = e.value("tuneplane_oldest_blocked_submission_age_seconds");
  ASSERT_TRUE(age);
  EXPECT_GE(*age, 0);
  EXPECT_LT(*age, 600) << "the intent was stamped moments ago";
  EXPECT_GT(*e.value("tuneplane_journal_size_bytes"), 0);
  EXPECT_EQ(e.value("tuneplane_submit_outcomes_total", {{"class", "ok"}}), 1);

  ASSERT_TRUE(journal->transition({"runs", 1}, AttemptState::running, AttemptState::failed, {}, {}).ok());
  const Exposition after = tpslurm::testing::parse_exposition(call("GET", "/metrics", kAliceToken).body);
  EXPECT_EQ(after.value("tuneplane_attempts", {{"state", "running"}}), 0) << "read again at each scrape";
  EXPECT_EQ(after.value("tuneplane_attempts", {{"state", "failed"}}), 1);
  EXPECT_EQ(after.value("tuneplane_cleanup_backlog", {{"step", "none"}}), 1);
}

TEST_F(MetricsRouteTest, WithoutMetricsTheRouteIsNotFound) {
  start();
  const auto answer = call("GET", "/metrics", kAliceToken);
  EXPECT_EQ(answer.status, 404);
  EXPECT_NE(answer.body.find("this server keeps no metrics"), std::string::npos) << answer.body;
  EXPECT_EQ(answer.headers.at("content-type"), "application/json");
}

}  // namespace
}  // namespace tpslurm::api::testing
