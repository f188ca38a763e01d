// POST /v1/attempts/{id}/resolve with `absent`, in-process over a real journal: the same rules
// as `resolve --absent` (the quiet period, then a complete search after it), the attempt named
// JOB/N percent-encoded or JOB for its newest, the answer and the journal's record; without a
// Slurm client an adoption is 503 and changes nothing. (Adoption against Slurm:
// serve_resolve_test.cc.)
#include <boost/json.hpp>

#include "api_fixture.h"
#include "support/journal_story.h"

namespace tpslurm::api::testing {
namespace {

namespace json = boost::json;
using tpslurm::testing::add_blocked_job;
using tpslurm::testing::record_search;

class ApiResolveTest : public ApiFixture {
 protected:
  void SetUp() override {
    start();
    m_intent = SystemClock().now() - std::chrono::hours(1);
    ASSERT_TRUE(add_blocked_job(settings.journal_path, "b1", m_intent).ok());
  }

  model::AttemptState state() {
    auto attempts = open_journal()->attempts("b1");
    return attempts.ok() && !attempts->empty() ? attempts->front().state : model::AttemptState::preparing;
  }

  TimePoint m_intent;
};

TEST_F(ApiResolveTest, AbsentNeedsACompleteSearchAfterTheQuietPeriodThenAbandonsTheAttempt) {
  const std::string target = "/v1/attempts/b1%2F1/resolve";
  const auto no_search = call("POST", target, kAliceToken, R"({"absent": true, "reason": "not in squeue"})");
  EXPECT_EQ(no_search.status, 409) << no_search.body;
  EXPECT_EQ(json::parse(no_search.body).at("error"), "too_early");
  EXPECT_NE(no_search.body.find("no complete search (every source answering) has run since the quiet period"),
            std::string::npos)
      << no_search.body;
  EXPECT_EQ(state(), model::AttemptState::submit_unknown);

  const auto no_reason = call("POST", target, kAliceToken, R"({"absent": true})");
  EXPECT_EQ(no_reason.status, 422) << no_reason.body;
  EXPECT_EQ(json::parse(no_reason.body).at("problems").as_array()[0].at("field"), "reason");
  const auto wrong_type = call("POST", target, kAliceToken, R"({"absent": "yes", "reason": "x"})");
  EXPECT_EQ(wrong_type.status, 422) << wrong_type.body;
  EXPECT_NE(wrong_type.body.find("expected true or false"), std::string::npos) << wrong_type.body;
  EXPECT_EQ(call("POST", target, "", R"({"absent": true, "reason": "x"})").status, 401);

  ASSERT_TRUE(record_search(settings.journal_path, "b1", m_intent + std::chrono::minutes(40), true).ok());
  // "b1" names the newest attempt, as the CLI's JOB.
  const auto resolved = call("POST", "/v1/attempts/b1/resolve", kAliceToken,
                             R"({"absent": true, "reason": "slurmctld.log shows no such job"})");
  ASSERT_EQ(resolved.status, 200) << resolved.body;
  EXPECT_EQ(json::parse(resolved.body),
            json::parse(R"({"attempt": "b1/1", "job_id": "b1", "number": 1, "resolution": "absent"})"));
  EXPECT_EQ(state(), model::AttemptState::abandoned);
  const auto audit = call("GET", "/v1/jobs/b1/audit", kAliceToken);
  EXPECT_NE(audit.body.find("slurmctld.log shows no such job"), std::string::npos) << audit.body;
  EXPECT_NE(audit.body.find("alice"), std::string::npos) << audit.body;

  const auto again = call("POST", target, kAliceToken, R"({"absent": true, "reason": "again"})");
  EXPECT_EQ(again.status, 409) << again.body;
  EXPECT_EQ(json::parse(again.body).at("error"), "not_blocked");
}

TEST_F(ApiResolveTest, AdoptOrLostWithoutASlurmClientIs503AndUnknownAttemptsAre404) {
  const auto adopt = call("POST", "/v1/attempts/b1%2F1/resolve", kAliceToken, R"({"adopt": "7"})");
  EXPECT_EQ(adopt.status, 503) << adopt.body;
  EXPECT_EQ(json::parse(adopt.body).at("error"), "slurm_unavailable");
  EXPECT_EQ(state(), model::AttemptState::submit_unknown);
  const auto lost = call("POST", "/v1/attempts/b1%2F1/resolve", kAliceToken, R"({"lost": true, "reason": "gone"})");
  EXPECT_EQ(lost.status, 503) << lost.body;
  const auto no_reason = call("POST", "/v1/attempts/b1%2F1/resolve", kAliceToken, R"({"lost": true})");
  EXPECT_EQ(no_reason.status, 422) << no_reason.body;
  EXPECT_NE(no_reason.body.find("lost needs a reason"), std::string::npos) << no_reason.body;
  const auto two = call("POST", "/v1/attempts/b1%2F1/resolve", kAliceToken, R"({"lost": true, "adopt": "7"})");
  EXPECT_EQ(two.status, 422) << two.body;
  EXPECT_EQ(state(), model::AttemptState::submit_unknown);
  EXPECT_EQ(call("POST", "/v1/attempts/b1%2F3/resolve", kAliceToken, R"({"adopt": "7"})").status, 404);
  EXPECT_EQ(call("POST", "/v1/attempts/nope/resolve", kAliceToken, R"({"adopt": "7"})").status, 404);
  EXPECT_EQ(call("GET", "/v1/attempts/b1%2F1/resolve", kAliceToken).status, 405);
}

}  // namespace
}  // namespace tpslurm::api::testing
