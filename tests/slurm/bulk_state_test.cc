// bulk_state: jobs/state batching (repeated numeric job_id parameters, bounded URLs, duplicates
// dropped, every id accounted for as reported, not reported or unanswered) and 22.05's
// update_time fallback, against canned answers from the real transcripts.
#include "slurm/bulk_state.h"

#include <gtest/gtest.h>

#include "fake_transport.h"
#include "slurm/rest_client.h"
#include "test_support.h"

namespace tpslurm::slurm {
namespace {

using model::SlurmBaseState;

std::vector<std::uint32_t> consecutive_ids(std::uint32_t first, std::uint32_t count) {
  std::vector<std::uint32_t> ids;
  for (std::uint32_t i = 0; i < count; ++i) ids.push_back(first + i);
  return ids;
}

std::string jobs_state_answer(const std::vector<std::string>& ids, const std::string& state = "PENDING") {
  std::string body = R"({"jobs":[)";
  for (std::size_t i = 0; i < ids.size(); ++i) {
    body += (i ? "," : "") + std::string(R"({"job_id":")") + ids[i] + R"(","state":[")" + state + R"("]})";
  }
  return body + R"(],"meta":{"slurm":{"release":"26.05.3"}},"errors":[],"warnings":[]})";
}

class BulkStateTest : public ::testing::Test {
 protected:
  std::unique_ptr<RestClient> client(std::string version, BulkLimits limits = {}, RequestBudget* budget = nullptr) {
    RestClientOptions options;
    options.clock = &m_clock;
    options.bulk = limits;
    options.budget = budget;
    auto made = RestClient::create(m_transport, m_tokens, std::move(version), options);
    EXPECT_TRUE(made.ok());
    return std::move(made).value();
  }

  ManualClock m_clock{from_unix_seconds(1796040000)};
  testing::FakeTransport m_transport;
  testing::StaticTokenSource m_tokens;
  std::unique_ptr<Dialect> m_v45 = make_dialect("v0.0.45");
};

TEST_F(BulkStateTest, PlansAtMost500IdsPerCall) {
  const auto calls = plan_jobs_state_calls(*m_v45, consecutive_ids(1, 1200), BulkLimits{});
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].size(), 500u);
  EXPECT_EQ(calls[1].size(), 500u);
  EXPECT_EQ(calls[2].size(), 200u);
  EXPECT_EQ(calls[0].front(), 1u);
  EXPECT_EQ(calls[2].back(), 1200u);
}

TEST_F(BulkStateTest, KeepsEveryTargetUnderTheUrlBound) {
  const BulkLimits limits{500, 1000};
  const auto calls = plan_jobs_state_calls(*m_v45, consecutive_ids(1000000, 300), limits);
  std::size_t asked = 0;
  for (const auto& ids : calls) {
    EXPECT_LE(m_v45->jobs_state_path(ids).size(), 1000u);
    asked += ids.size();
  }
  EXPECT_EQ(asked, 300u);
  // "/slurm/v0.0.45/jobs/state" is 25 bytes, each "&job_id=1000000" 15: 65 ids fit in 1000.
  EXPECT_EQ(calls.front().size(), 65u);
}

TEST_F(BulkStateTest, DropsDuplicatesAndZeros) {
  const std::vector<std::uint32_t> ids{15, 0, 12, 15, 14, 12};
  EXPECT_EQ(normalize_ids(ids), (std::vector<std::uint32_t>{12, 14, 15}));
  const auto calls = plan_jobs_state_calls(*m_v45, ids, BulkLimits{});
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(m_v45->jobs_state_path(calls[0]), "/slurm/v0.0.45/jobs/state?job_id=12&job_id=14&job_id=15");
}

// Transcript 19: 14 is a hetjob leader, 15 its component 1; asking both returns 15 twice.
TEST_F(BulkStateTest, AsksWithRepeatedJobIdParametersAndReportsEachComponentOnce) {
  m_transport.answer("/slurm/v0.0.45/jobs/state?job_id=12&job_id=14&job_id=15", 200,
                     testing::response_v0045("19_jobs_state_multi_repeated"));
  const std::vector<std::uint32_t> ids{15, 14, 12, 14};
  const BulkStateResult result = client("v0.0.45")->bulk_state(ids);
  EXPECT_EQ(result.outcome, Outcome::ok) << result.message;
  EXPECT_EQ(result.calls, 1);
  ASSERT_EQ(result.states.size(), 3u);
  EXPECT_EQ(result.states[0].job_id, 12u);
  EXPECT_EQ(result.states[0].state.base, SlurmBaseState::cancelled);
  EXPECT_FALSE(result.states[0].het_job_offset);
  EXPECT_EQ(result.states[1].job_id, 14u);
  EXPECT_EQ(result.states[1].het_job_offset, 0u);
  EXPECT_EQ(result.states[1].state.base, SlurmBaseState::pending);
  EXPECT_EQ(result.states[2].job_id, 15u);
  EXPECT_EQ(result.states[2].het_job_offset, 1u);
  EXPECT_TRUE(result.not_reported.empty());
  EXPECT_TRUE(result.unanswered.empty());
  EXPECT_EQ(result.release, "26.05.3");
}

TEST_F(BulkStateTest, SaysWhichAskedIdsTheServerDidNotReport) {
  m_transport.answer("/slurm/v0.0.45/jobs/state?job_id=12&job_id=999999", 200,
                     testing::response_v0045("07_jobs_state_single"));
  const std::vector<std::uint32_t> ids{999999, 12};
  const BulkStateResult result = client("v0.0.45")->bulk_state(ids);
  EXPECT_EQ(result.outcome, Outcome::ok);
  ASSERT_EQ(result.states.size(), 1u);
  EXPECT_EQ(result.states[0].job_id, 12u);
  EXPECT_EQ(result.not_reported, std::vector<std::uint32_t>{999999});
}

TEST_F(BulkStateTest, AComponentReportedThroughItsLeaderIsReportedEvenIfAskedInAnotherCall) {
  m_transport.answer("/slurm/v0.0.45/jobs/state?job_id=14", 200, jobs_state_answer({"14+0", "15+1"}));
  m_transport.answer("/slurm/v0.0.45/jobs/state?job_id=15", 200, jobs_state_answer({"15+1"}));
  const std::vector<std::uint32_t> ids{14, 15};
  const BulkStateResult result = client("v0.0.45", BulkLimits{1, 8000})->bulk_state(ids);
  EXPECT_EQ(result.outcome, Outcome::ok);
  EXPECT_EQ(result.calls, 2);
  EXPECT_EQ(result.states.size(), 2u);
  EXPECT_TRUE(result.not_reported.empty());
}

TEST_F(BulkStateTest, StopsAtTheFirstFailedCallAndCallsItsIdsUnanswered) {
  m_transport.answer("/slurm/v0.0.45/jobs/state?job_id=1&job_id=2", 200, jobs_state_answer({"1"}));
  m_transport.fail("/slurm/v0.0.45/jobs/state?job_id=3&job_id=4", Delivery::uncertain, TransportFault::reset);
  const BulkStateResult result = client("v0.0.45", BulkLimits{2, 8000})->bulk_state(consecutive_ids(1, 6));
  EXPECT_EQ(result.outcome, Outcome::uncertain);
  EXPECT_EQ(result.message,
            "GET /slurm/v0.0.45/jobs/state?job_id=3&job_id=4: may have been received: connection reset "
            "(http://slurmrestd.test:6820)");
  EXPECT_EQ(result.calls, 2);
  ASSERT_EQ(result.states.size(), 1u);
  EXPECT_EQ(result.not_reported, std::vector<std::uint32_t>{2});
  EXPECT_EQ(result.unanswered, (std::vector<std::uint32_t>{3, 4, 5, 6}));
  EXPECT_EQ(m_transport.requests().size(), 2u) << "no call after the failure";
}

TEST_F(BulkStateTest, AnAnswerThatIsNotJsonLeavesEveryIdUnanswered) {
  m_transport.answer("/slurm/v0.0.45/jobs/state?job_id=7", 200, "<html>proxy error</html>");
  const std::vector<std::uint32_t> ids{7};
  const BulkStateResult result = client("v0.0.45")->bulk_state(ids);
  EXPECT_EQ(result.outcome, Outcome::uncertain);
  EXPECT_EQ(result.unanswered, std::vector<std::uint32_t>{7});
  EXPECT_TRUE(result.not_reported.empty());
}

TEST_F(BulkStateTest, NeverCallsWithoutIds) {
  const std::vector<std::uint32_t> none{0, 0};
  const BulkStateResult result = client("v0.0.45")->bulk_state(none);
  EXPECT_EQ(result.outcome, Outcome::ok);
  EXPECT_EQ(result.calls, 0);
  EXPECT_TRUE(m_transport.requests().empty()) << "jobs/state without a job_id lists every job";
}

TEST_F(BulkStateTest, StopsWhenTheRequestBudgetIsUsedUp) {
  RequestBudget budget(m_clock, BudgetLimits{2});
  for (const std::string target : {"/slurm/v0.0.45/jobs/state?job_id=1", "/slurm/v0.0.45/jobs/state?job_id=2"}) {
    m_transport.answer(target, 200, jobs_state_answer({target.substr(target.size() - 1)}));
  }
  const BulkStateResult result = client("v0.0.45", BulkLimits{1, 8000}, &budget)->bulk_state(consecutive_ids(1, 3));
  EXPECT_EQ(result.outcome, Outcome::not_sent);
  EXPECT_EQ(result.message,
            "GET /slurm/v0.0.45/jobs/state?job_id=3: not sent: request budget: all 2 calls of this second are used");
  EXPECT_EQ(result.calls, 2);
  EXPECT_EQ(result.states.size(), 2u);
  EXPECT_EQ(result.unanswered, std::vector<std::uint32_t>{3});
  EXPECT_EQ(m_transport.requests().size(), 2u);
}

// --- v0.0.38 (22.05): no jobs/state; jobs?update_time= ------------------------------------

class BulkStateV0038Test : public BulkStateTest {
 protected:
  void SetUp() override {
    // diag.txt's req_time is 1796039034; the manual clock reads 1796040000, so the server is
    // 966 s behind and the earliest server time "now" is exactly 1796039034.
    m_transport.answer("/slurm/v0.0.38/diag", 200, testing::transcript_v0038("diag").response_body);
  }
};

TEST_F(BulkStateV0038Test, PicksTheAskedJobsAndTheirComponentsOutOfTheFullList) {
  m_transport.answer("/slurm/v0.0.38/jobs", 200, testing::transcript_v0038("get_jobs").response_body);
  const std::vector<std::uint32_t> ids{7, 9, 404};
  const BulkStateResult result = client("v0.0.38")->bulk_state(ids);
  EXPECT_EQ(result.outcome, Outcome::ok) << result.message;
  EXPECT_EQ(result.calls, 1);
  ASSERT_EQ(result.states.size(), 3u);
  EXPECT_EQ(result.states[0].job_id, 7u);
  EXPECT_EQ(result.states[0].het_job_offset, 0u);
  EXPECT_EQ(result.states[1].job_id, 8u) << "component 1 of the asked leader 7";
  EXPECT_EQ(result.states[1].het_job_offset, 1u);
  EXPECT_EQ(result.states[1].state.base, SlurmBaseState::completed);
  EXPECT_EQ(result.states[2].job_id, 9u);
  EXPECT_EQ(result.states[2].state.base, SlurmBaseState::cancelled);
  ASSERT_EQ(result.records.size(), 3u);
  EXPECT_EQ(result.records[2].name, "to-cancel");
  EXPECT_EQ(result.not_reported, std::vector<std::uint32_t>{404});
  EXPECT_FALSE(result.unchanged);
  EXPECT_EQ(result.next_since, from_unix_seconds(1796039033));
}

TEST_F(BulkStateV0038Test, ReportsNothingChangedOn304) {
  m_transport.answer("/slurm/v0.0.38/jobs?update_time=1796039000", 304, "");
  const std::vector<std::uint32_t> ids{7, 9};
  const BulkStateResult result = client("v0.0.38")->bulk_state(ids, from_unix_seconds(1796039000));
  EXPECT_EQ(result.outcome, Outcome::ok);
  EXPECT_TRUE(result.unchanged);
  EXPECT_EQ(result.message, "");
  EXPECT_TRUE(result.states.empty());
  EXPECT_TRUE(result.not_reported.empty()) << "304 says nothing changed, not that the jobs are gone";
  EXPECT_EQ(result.next_since, from_unix_seconds(1796039033));
}

TEST_F(BulkStateV0038Test, WithoutTheServersClockTheNextPollListsEverything) {
  m_transport.answer("/slurm/v0.0.38/diag", 500, R"({"errors":[{"error_number":1,"error":"boom"}]})");
  m_transport.answer("/slurm/v0.0.38/jobs", 200, testing::transcript_v0038("get_jobs").response_body);
  const std::vector<std::uint32_t> ids{1};
  const BulkStateResult result = client("v0.0.38")->bulk_state(ids);
  EXPECT_EQ(result.outcome, Outcome::ok);
  EXPECT_EQ(result.states.size(), 1u);
  EXPECT_FALSE(result.next_since) << "a baseline on the local clock could hide a change";
}

TEST_F(BulkStateV0038Test, ReadsTheServersClockOncePerMaxAge) {
  m_transport.answer("/slurm/v0.0.38/jobs", 200, testing::transcript_v0038("get_jobs").response_body);
  auto polling = client("v0.0.38");
  const std::vector<std::uint32_t> ids{1};
  (void)polling->bulk_state(ids);
  m_clock.advance(std::chrono::minutes(5));
  (void)polling->bulk_state(ids);
  m_clock.advance(std::chrono::minutes(6));
  (void)polling->bulk_state(ids);
  int diag = 0;
  for (const auto& target : m_transport.targets()) diag += target == "/slurm/v0.0.38/diag" ? 1 : 0;
  EXPECT_EQ(diag, 2);
}

}  // namespace
}  // namespace tpslurm::slurm
