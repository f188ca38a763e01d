// Outcome classification against every fault the simulator injects, through the real client
// and the real libcurl transport over HTTP to a slurmrestd-sim process. Response faults act
// after the request took effect, so for each one the simulator's counters prove what the
// classification must allow for: the job exists although the client got no usable answer.
#include <gtest/gtest.h>

#include "sim_client_support.h"

namespace tpslurm::slurm {
namespace {

using testing::sim_description;

class SimFaultsTest : public testing::SimClientTest {
 protected:
  SubmitResult submit(const std::string& name = "tp-sim-fault-1") { return m_client->submit(sim_description(name)); }
  static constexpr char kSubmitRule[] = R"("method": "POST", "path_prefix": "/slurm/v0.0.45/job/submit")";
};

TEST_F(SimFaultsTest, DroppedAnswerAfterTheJobWasCreatedIsUncertain) {
  start();
  fault(std::string(R"({"kind": "drop_response", )") + kSubmitRule + "}");
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::uncertain);
  EXPECT_EQ(result.message,
            "POST /slurm/v0.0.45/job/submit: may have been received: connection closed with no answer" + where());
  EXPECT_EQ(m_sim->stat("submits_received"), 1) << "sent exactly once";
  EXPECT_EQ(m_sim->stat("jobs_created"), 1) << "the job exists: only a search can tell";
  // The search a lost answer calls for finds it.
  const SearchResult found = m_client->find_jobs_by_tag(sim_description("tp-sim-fault-1").tag, m_clock.now());
  ASSERT_EQ(found.matches.size(), 1u) << found.message;
  EXPECT_EQ(found.matches[0].marks, 3);
  EXPECT_EQ(found.matches[0].source, SearchSource::slurmctld);
}

class SimErrorStatusTest : public SimFaultsTest, public ::testing::WithParamInterface<int> {};

TEST_P(SimErrorStatusTest, ServerErrorWithoutJobIdAfterTheJobWasCreatedIsUncertain) {
  start();
  fault(R"({"kind": "error_response", "status": )" + std::to_string(GetParam()) + ", " + kSubmitRule + "}");
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::uncertain);
  EXPECT_EQ(result.http_status, GetParam());
  EXPECT_FALSE(result.job_id);
  EXPECT_EQ(result.message.rfind("POST /slurm/v0.0.45/job/submit: HTTP " + std::to_string(GetParam()) + ": ", 0), 0u)
      << result.message;
  EXPECT_NE(result.message.find(" and no job_id"), std::string::npos) << result.message;
  EXPECT_EQ(m_sim->stat("submits_received"), 1);
  EXPECT_EQ(m_sim->stat("jobs_created"), 1);
}

INSTANTIATE_TEST_SUITE_P(Statuses, SimErrorStatusTest, ::testing::Values(500, 502, 504));

// The answer arrives; then the server closes the kept-alive connection. The submit went on a
// fresh connection anyway, and the next read reconnects: one POST, one job, nothing lost.
TEST_F(SimFaultsTest, ClosedKeptAliveConnectionAfterTheJobWasCreatedLosesNothing) {
  start();
  fault(std::string(R"({"kind": "close_after_response", )") + kSubmitRule + "}");
  const SubmitResult result = submit();
  ASSERT_EQ(result.outcome, Outcome::ok) << result.message;
  ASSERT_TRUE(result.job_id);
  fault(R"({"kind": "close_after_response", "method": "GET", "path_prefix": "/slurm/v0.0.45/job/"})");
  EXPECT_EQ(m_client->get_job({*result.job_id, ""}).outcome, Outcome::ok);
  const JobsResult again = m_client->get_job({*result.job_id, ""});
  EXPECT_EQ(again.outcome, Outcome::ok) << again.message;
  const SubmitResult second = submit("tp-sim-fault-2");
  EXPECT_EQ(second.outcome, Outcome::ok) << second.message;
  EXPECT_EQ(m_sim->stat("submits_received"), 2);
  EXPECT_EQ(m_sim->stat("jobs_created"), 2);
}

TEST_F(SimFaultsTest, AnswerLaterThanTheTimeoutIsUncertain) {
  start({}, "v0.0.45", std::chrono::milliseconds(800));
  fault(std::string(R"({"kind": "delay", "ms": 2500, )") + kSubmitRule + "}");
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::uncertain);
  EXPECT_EQ(result.message,
            "POST /slurm/v0.0.45/job/submit: may have been received: timed out waiting for the answer" + where());
  EXPECT_EQ(m_sim->stat("jobs_created"), 1);
}

TEST_F(SimFaultsTest, ConnectionClosedMidBodyIsUncertain) {
  start();
  fault(std::string(R"({"kind": "close_mid_body", )") + kSubmitRule + "}");
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::uncertain);
  EXPECT_EQ(result.message, "POST /slurm/v0.0.45/job/submit: may have been received: answer cut short" + where());
  EXPECT_EQ(m_sim->stat("jobs_created"), 1);
}

TEST_F(SimFaultsTest, GarbageInsteadOfJsonIsUncertain) {
  start();
  fault(std::string(R"({"kind": "garbage", )") + kSubmitRule + "}");
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::uncertain);
  EXPECT_EQ(result.message,
            "POST /slurm/v0.0.45/job/submit: HTTP 200 with a body that is not the expected JSON and no job_id");
  EXPECT_EQ(m_sim->stat("jobs_created"), 1);
}

TEST_F(SimFaultsTest, GarbageForAReadIsUncertain) {
  start();
  fault(R"({"kind": "garbage", "method": "GET", "path_prefix": "/slurm/v0.0.45/jobs/state"})");
  const std::vector<std::uint32_t> ids{1};
  const BulkStateResult result = m_client->bulk_state(ids);
  EXPECT_EQ(result.outcome, Outcome::uncertain);
  EXPECT_EQ(result.unanswered, std::vector<std::uint32_t>{1});
}

// An outage that closes connections unanswered looks exactly like a lost answer: the client
// cannot know that nothing was created, so it must say uncertain.
TEST_F(SimFaultsTest, OutageThatClosesConnectionsIsUncertainAlthoughNothingWasCreated) {
  start();
  fault(R"({"kind": "outage", "mode": "close", "seconds": 60})");
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::uncertain);
  EXPECT_EQ(result.message,
            "POST /slurm/v0.0.45/job/submit: may have been received: connection closed with no answer" + where());
  EXPECT_EQ(m_sim->stat("jobs_created"), 0);
  advance(std::chrono::seconds(61));
  EXPECT_EQ(submit("tp-sim-fault-2").outcome, Outcome::ok) << "the window ended";
}

TEST_F(SimFaultsTest, OutageThatRefusesConnectionsIsNotSent) {
  start();
  fault(R"({"kind": "outage", "mode": "refuse", "seconds": 60})");
  const SubmitResult result = submit();
  EXPECT_EQ(result.outcome, Outcome::not_sent);
  EXPECT_EQ(result.message, "POST /slurm/v0.0.45/job/submit: not sent: connection refused" + where());
  EXPECT_EQ(m_sim->stat("submits_received"), 0);
  advance(std::chrono::seconds(61));
  EXPECT_EQ(submit("tp-sim-fault-2").outcome, Outcome::ok);
}

TEST_F(SimFaultsTest, SlowControllerBeyondTheTimeoutIsUncertainAndWithinItIsOk) {
  start({}, "v0.0.45", std::chrono::milliseconds(800));
  const SubmitResult made = submit();
  ASSERT_EQ(made.outcome, Outcome::ok) << made.message;
  fault(R"({"kind": "slow_controller", "ms": 2000, "seconds": 600})");
  const JobsResult slow = m_client->get_job({*made.job_id, ""});
  EXPECT_EQ(slow.outcome, Outcome::uncertain);
  EXPECT_EQ(slow.message, "GET /slurm/v0.0.45/job/" + std::to_string(*made.job_id) +
                              ": may have been received: timed out waiting for the answer" + where());
  control(HttpMethod::del, "/sim/faults");
  fault(R"({"kind": "slow_controller", "ms": 200, "seconds": 600})");
  EXPECT_EQ(m_client->get_job({*made.job_id, ""}).outcome, Outcome::ok);
}

TEST_F(SimFaultsTest, AccountingOutageLeavesTheSearchIncomplete) {
  start();
  const TimePoint intent = m_clock.now();
  ASSERT_EQ(submit().outcome, Outcome::ok);
  fault(R"({"kind": "accounting_outage", "seconds": 600})");
  const SearchResult result = m_client->find_jobs_by_tag(sim_description("tp-sim-fault-1").tag, intent);
  EXPECT_FALSE(result.complete());
  ASSERT_EQ(result.sources.size(), 2u);
  EXPECT_EQ(result.sources[0].outcome, Outcome::ok);
  EXPECT_EQ(result.sources[1].outcome, Outcome::uncertain);
  EXPECT_EQ(result.outcome, Outcome::uncertain);
  EXPECT_EQ(result.matches.size(), 1u) << "slurmctld still knows the job";
  EXPECT_NE(result.sources[1].message.find("HTTP 502: "), std::string::npos) << result.sources[1].message;
  EXPECT_NE(result.sources[1].message.find("(error 7000)"), std::string::npos) << result.sources[1].message;
}

// An accounting lag: slurmdbd has not heard of what changed since it began, and diag's DBD agent
// queue says so; once it ends, slurmdbd knows everything.
TEST_F(SimFaultsTest, AnAccountingLagHidesNewRecordsFromSlurmdbdAndShowsInDiag) {
  start();
  const TimePoint intent = m_clock.now();
  ASSERT_EQ(submit("tp-sim-before").outcome, Outcome::ok);
  EXPECT_EQ(m_client->diag().dbd_agent_queue_size, 0);
  advance(std::chrono::seconds(1));
  fault(R"({"kind": "accounting_lag", "seconds": 600})");
  ASSERT_EQ(submit("tp-sim-during").outcome, Outcome::ok);
  const DiagResult diag = m_client->diag();
  ASSERT_TRUE(diag.ok()) << diag.message;
  EXPECT_EQ(diag.dbd_agent_queue_size, 1);
  const SearchResult before = m_client->find_jobs_by_tag(sim_description("tp-sim-before").tag, intent);
  const SearchResult during = m_client->find_jobs_by_tag(sim_description("tp-sim-during").tag, intent);
  EXPECT_TRUE(during.complete()) << "slurmdbd answers: it just does not know";
  ASSERT_EQ(before.sources.size(), 2u);
  ASSERT_EQ(during.sources.size(), 2u);
  EXPECT_EQ(before.sources[1].records, 1);
  EXPECT_EQ(during.sources[1].records, 0) << "still in slurmctld's DBD agent queue";
  ASSERT_TRUE(m_sim->control(HttpMethod::del, "/sim/faults").ok());
  EXPECT_EQ(m_client->diag().dbd_agent_queue_size, 0);
  EXPECT_EQ(m_client->find_jobs_by_tag(sim_description("tp-sim-during").tag, intent).sources[1].records, 1);
}

// With a request budget, two failed calls in a row put the client on hold: the calls that
// follow are refused before anything is sent, so a sick server is not hammered.
TEST_F(SimFaultsTest, TheBudgetHoldsOffAfterAnOutageAndProbesOnceItHasPassed) {
  ManualClock budget_clock{from_unix_seconds(1796040000)};
  RequestBudget budget(budget_clock, BudgetLimits{100, std::chrono::seconds(10), std::chrono::seconds(60), 2.0});
  start({}, "v0.0.45", std::chrono::milliseconds(2000), &budget);
  fault(R"({"kind": "outage", "mode": "close", "seconds": 5})");
  const std::vector<std::uint32_t> ids{1, 2, 3};
  EXPECT_EQ(m_client->bulk_state(ids).outcome, Outcome::uncertain);
  EXPECT_EQ(m_client->bulk_state(ids).outcome, Outcome::uncertain);
  advance(std::chrono::seconds(5));
  const SubmitResult held = submit();
  EXPECT_EQ(held.outcome, Outcome::not_sent);
  EXPECT_EQ(held.message,
            "POST /slurm/v0.0.45/job/submit: not sent: request budget: backing off after 2 failed call(s) until "
            "2026-11-30T12:00:10Z");
  EXPECT_EQ(m_client->bulk_state(ids).outcome, Outcome::not_sent);
  EXPECT_EQ(m_sim->stat("submits_received"), 0);
  EXPECT_EQ(m_sim->route_count("GET /slurm/v0.0.45/jobs/state"), 2) << "only the calls the outage swallowed";
  budget_clock.advance(std::chrono::seconds(10));
  const BulkStateResult probe = m_client->bulk_state(ids);
  EXPECT_EQ(probe.outcome, Outcome::ok) << probe.message;
  EXPECT_EQ(probe.not_reported, ids);
  EXPECT_EQ(submit().outcome, Outcome::ok);
}

}  // namespace
}  // namespace tpslurm::slurm
