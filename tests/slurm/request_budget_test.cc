// RequestBudget: the per-cycle call limit, the back-off after errors and a submit's
// reservation, driven by a manual clock (no sleeping), and through the client: a refused call
// is `not_sent` and never reaches the transport; a reserved submit is not counted twice.
#include "slurm/request_budget.h"

#include <gtest/gtest.h>

#include "fake_transport.h"
#include "slurm/rest_client.h"
#include "test_support.h"

namespace tpslurm::slurm {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class RequestBudgetTest : public ::testing::Test {
 protected:
  ManualClock m_clock{from_unix_seconds(1796040000)};
};

TEST_F(RequestBudgetTest, GrantsAtMostTheCallsOfOneCycle) {
  RequestBudget budget(m_clock, BudgetLimits{3});
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(budget.admit().granted);
    budget.record(Outcome::ok);
  }
  const Admission refused = budget.admit();
  EXPECT_FALSE(refused.granted);
  EXPECT_EQ(refused.reason, "request budget: all 3 calls of this cycle are used");
  EXPECT_FALSE(refused.retry_at);
  EXPECT_EQ(budget.used_this_cycle(), 3);
  budget.begin_cycle();
  EXPECT_TRUE(budget.admit().granted);
}

TEST_F(RequestBudgetTest, BacksOffAfterTwoFailuresInARowUntilTheDelayHasPassed) {
  RequestBudget budget(m_clock, BudgetLimits{100, milliseconds(1000), seconds(60), 2.0});
  ASSERT_TRUE(budget.admit().granted);
  budget.record(Outcome::uncertain);
  EXPECT_FALSE(budget.backing_off_until()) << "one failure is that call's own";
  ASSERT_TRUE(budget.admit().granted);
  budget.record(Outcome::not_sent);
  const Admission refused = budget.admit();
  EXPECT_FALSE(refused.granted);
  EXPECT_EQ(refused.reason, "request budget: backing off after 2 failed call(s) until 2026-11-30T12:00:01Z");
  EXPECT_EQ(refused.retry_at, m_clock.now() + seconds(1));
  m_clock.advance(milliseconds(999));
  EXPECT_FALSE(budget.admit().granted);
  m_clock.advance(milliseconds(1));
  EXPECT_TRUE(budget.admit().granted);
}

// A server that answers most calls and fails one now and then (one 500, one dropped
// connection) never holds every other call back.
TEST_F(RequestBudgetTest, AFailureBetweenSuccessesIsNoReasonToBackOff) {
  RequestBudget budget(m_clock, BudgetLimits{1000});
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(budget.admit().granted) << i;
    budget.record(i % 2 == 0 ? Outcome::uncertain : Outcome::ok);
    EXPECT_FALSE(budget.backing_off_until()) << i;
  }
}

TEST_F(RequestBudgetTest, OneFailureBacksOffWhenTheLimitsSaySo) {
  BudgetLimits limits{100, milliseconds(1000), seconds(60), 2.0};
  limits.failures_before_backoff = 1;
  RequestBudget budget(m_clock, limits);
  ASSERT_TRUE(budget.admit().granted);
  budget.record(Outcome::rejected_transient);
  EXPECT_EQ(budget.admit().reason, "request budget: backing off after 1 failed call(s) until 2026-11-30T12:00:01Z");
}

TEST_F(RequestBudgetTest, DoublesTheDelayWithEachFailureUpToTheCap) {
  RequestBudget budget(m_clock, BudgetLimits{100, milliseconds(1000), seconds(5), 2.0});
  ASSERT_TRUE(budget.admit().granted);
  budget.record(Outcome::not_sent);
  std::vector<milliseconds> delays;
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(budget.admit().granted) << i;
    budget.record(Outcome::not_sent);
    const TimePoint until = *budget.backing_off_until();
    delays.push_back(std::chrono::duration_cast<milliseconds>(until - m_clock.now()));
    m_clock.set(until);
  }
  EXPECT_EQ(delays, (std::vector<milliseconds>{milliseconds(1000), milliseconds(2000), milliseconds(4000),
                                               milliseconds(5000), milliseconds(5000)}));
  EXPECT_EQ(budget.consecutive_failures(), 6);
}

TEST_F(RequestBudgetTest, LetsOneProbeThroughAfterTheBackOffAndWaitsForItsOutcome) {
  RequestBudget budget(m_clock, BudgetLimits{100, milliseconds(1000), seconds(60), 2.0});
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(budget.admit().granted);
    budget.record(Outcome::uncertain);
  }
  m_clock.advance(seconds(1));
  EXPECT_TRUE(budget.admit().granted) << "the probe";
  const Admission second = budget.admit();
  EXPECT_FALSE(second.granted);
  EXPECT_EQ(second.reason, "request budget: a probe call after 2 failed call(s) is still out");
  budget.record(Outcome::ok);
  EXPECT_FALSE(budget.backing_off_until());
  EXPECT_EQ(budget.consecutive_failures(), 0);
  EXPECT_TRUE(budget.admit().granted);
  EXPECT_TRUE(budget.admit().granted);
}

TEST_F(RequestBudgetTest, AnswersAboutTheRequestItselfAreNoReasonToBackOff) {
  RequestBudget budget(m_clock, BudgetLimits{100});
  for (Outcome outcome : {Outcome::ok, Outcome::not_found, Outcome::rejected}) {
    ASSERT_TRUE(budget.admit().granted);
    budget.record(outcome);
    EXPECT_FALSE(budget.backing_off_until()) << to_string(outcome);
  }
  for (Outcome outcome : {Outcome::uncertain, Outcome::not_sent, Outcome::rejected_transient, Outcome::auth}) {
    EXPECT_TRUE(RequestBudget::is_failure(outcome)) << to_string(outcome);
  }
}

TEST_F(RequestBudgetTest, SubmitsLeaveRoomForTheCallsTheyBringAndTheJobsInSlurmTakeTheRest) {
  RequestBudget budget(m_clock, BudgetLimits{7});
  ASSERT_TRUE(budget.admit().granted) << "a poll";
  {
    Reserved first = budget.reserve_submit(2);
    ASSERT_TRUE(first.admission.granted) << "1 used: the submit and its 2 fit";
    first.reservation.spend();
  }
  Reserved second = budget.reserve_submit(2);
  ASSERT_TRUE(second.admission.granted) << "2 used, 2 promised, 3 left: this submit and its 2";
  second.reservation.spend();
  EXPECT_FALSE(budget.has_room_for_submit(0)) << "3 used, 4 promised: nothing left for a submit";
  const Reserved third = budget.reserve_submit(0);
  EXPECT_FALSE(third.admission.granted);
  EXPECT_FALSE(third.reservation.held());
  EXPECT_EQ(third.admission.reason,
            "request budget: the 4 call(s) left in this cycle are kept for the jobs already in Slurm and the submits "
            "made");
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(budget.admit().granted) << "identify, release, cancel: call " << i;
  EXPECT_FALSE(budget.admit().granted);
  budget.begin_cycle();
  EXPECT_TRUE(budget.has_room_for_submit(2)) << "a new cycle promises nothing yet";
}

TEST_F(RequestBudgetTest, CallsThatKeepAPromiseMakeNoRoomForMoreSubmits) {
  RequestBudget budget(m_clock, BudgetLimits{6});
  Reserved submit = budget.reserve_submit(2);
  ASSERT_TRUE(submit.admission.granted);
  submit.reservation.spend();
  ASSERT_TRUE(budget.admit().granted) << "its identify";
  ASSERT_TRUE(budget.admit().granted) << "its release";
  EXPECT_TRUE(budget.has_room_for_submit(2)) << "3 used, nothing promised: one more submit and its 2";
  EXPECT_FALSE(budget.has_room_for_submit(3));
}

TEST_F(RequestBudgetTest, ASubmitFitsACycleSmallerThanItsFollowUps) {
  RequestBudget budget(m_clock, BudgetLimits{2});
  Reserved reserved = budget.reserve_submit(2);
  EXPECT_TRUE(reserved.admission.granted) << "a budget of 2 still lets a submit through, first in its cycle";
  EXPECT_FALSE(budget.reserve_submit(2).admission.granted);
}

TEST_F(RequestBudgetTest, AnUnusedReservationGivesItsCallBackToItsOwnCycleOnly) {
  RequestBudget budget(m_clock, BudgetLimits{10});
  {
    Reserved dropped = budget.reserve_submit(0);
    ASSERT_TRUE(dropped.admission.granted);
    EXPECT_EQ(budget.used_this_cycle(), 1);
  }
  EXPECT_EQ(budget.used_this_cycle(), 0) << "the step stopped before sending: the call is back";
  Reserved old = budget.reserve_submit(0);
  budget.begin_cycle();
  ASSERT_TRUE(budget.admit().granted);
  old.reservation = Reservation{};  // dropped unused, a cycle late
  EXPECT_EQ(budget.used_this_cycle(), 1) << "a reservation of the last cycle takes nothing from this one";
}

TEST_F(RequestBudgetTest, AProbeReservedAndNotSentLetsTheNextCallProbe) {
  RequestBudget budget(m_clock, BudgetLimits{100, milliseconds(1000), seconds(60), 2.0});
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(budget.admit().granted);
    budget.record(Outcome::uncertain);
  }
  m_clock.advance(seconds(1));
  {
    Reserved probe = budget.reserve_submit(2);
    ASSERT_TRUE(probe.admission.granted) << "the probe";
    EXPECT_FALSE(budget.admit().granted) << "one probe at a time";
  }
  EXPECT_TRUE(budget.admit().granted) << "the reserved probe never went: another call probes";
}

TEST_F(RequestBudgetTest, RefusesLimitsThatCannotWork) {
  EXPECT_EQ(BudgetLimits{0}.check().error().message(), "request budget: calls_per_cycle 0 must be at least 1");
  EXPECT_EQ((BudgetLimits{10, milliseconds(0)}).check().error().message(),
            "request budget: initial_backoff must be at least 1 ms");
  EXPECT_EQ((BudgetLimits{10, seconds(10), seconds(1)}).check().error().message(),
            "request budget: max_backoff must not be shorter than initial_backoff");
  EXPECT_EQ((BudgetLimits{10, seconds(1), seconds(10), 0.5}).check().error().message(),
            "request budget: multiplier must be at least 1");
  BudgetLimits never;
  never.failures_before_backoff = 0;
  EXPECT_EQ(never.check().error().message(), "request budget: failures_before_backoff 0 must be at least 1");
  EXPECT_TRUE(BudgetLimits{}.check().ok());
}

// Through the client: after two failed calls the next one is refused without touching the
// transport, and is `not_sent` — safe for a submit too.
TEST_F(RequestBudgetTest, TheClientSendsNothingWhileBackingOff) {
  testing::FakeTransport transport;
  testing::StaticTokenSource tokens;
  transport.fail("/slurm/v0.0.45/job/12", Delivery::uncertain, TransportFault::send_timeout);
  RequestBudget budget(m_clock, BudgetLimits{100, seconds(30), seconds(300), 2.0});
  RestClientOptions options;
  options.clock = &m_clock;
  options.budget = &budget;
  auto client = RestClient::create(transport, tokens, "v0.0.45", options);
  ASSERT_TRUE(client.ok());
  EXPECT_EQ((*client)->get_job({12, ""}).outcome, Outcome::uncertain);
  EXPECT_EQ((*client)->get_job({12, ""}).outcome, Outcome::uncertain);
  const SubmitResult submit = (*client)->submit(testing::cpu_description());
  EXPECT_EQ(submit.outcome, Outcome::not_sent);
  EXPECT_EQ(submit.message,
            "POST /slurm/v0.0.45/job/submit: not sent: request budget: backing off after 2 failed call(s) until "
            "2026-11-30T12:00:30Z");
  EXPECT_EQ(transport.requests().size(), 2u);
}

class NoTokens final : public TokenSource {
 public:
  Result<Credentials> credentials() override { return permanent("the token file cannot be read"); }
  std::string describe() const override { return "no token"; }
};

// Through the client: a reserved submit is the one call the reservation took; a submit that
// is not sent (no credentials) gives its reservation back.
TEST_F(RequestBudgetTest, AReservedSubmitIsCountedOnceAndOneNotSentGivesItsCallBack) {
  testing::FakeTransport transport;
  testing::StaticTokenSource tokens;
  transport.answer(HttpMethod::post, "/slurm/v0.0.45/job/submit", 200,
                   R"({"job_id": 41, "errors": [], "warnings": []})");
  RequestBudget budget(m_clock, BudgetLimits{10});
  RestClientOptions options;
  options.clock = &m_clock;
  options.budget = &budget;
  auto client = RestClient::create(transport, tokens, "v0.0.45", options);
  ASSERT_TRUE(client.ok());
  Reserved reserved = budget.reserve_submit(2);
  ASSERT_TRUE(reserved.admission.granted);
  const SubmitResult submit = (*client)->submit(testing::cpu_description(), std::move(reserved.reservation));
  EXPECT_EQ(submit.outcome, Outcome::ok) << submit.message;
  EXPECT_EQ(budget.used_this_cycle(), 1);
  EXPECT_EQ(transport.requests().size(), 1u);

  NoTokens no_tokens;
  auto without = RestClient::create(transport, no_tokens, "v0.0.45", options);
  ASSERT_TRUE(without.ok());
  Reserved again = budget.reserve_submit(2);
  ASSERT_TRUE(again.admission.granted);
  EXPECT_EQ(budget.used_this_cycle(), 2);
  EXPECT_EQ((*without)->submit(testing::cpu_description(), std::move(again.reservation)).outcome, Outcome::auth);
  EXPECT_EQ(budget.used_this_cycle(), 1) << "nothing was sent: the call is back";
  EXPECT_EQ(transport.requests().size(), 1u);
}

}  // namespace
}  // namespace tpslurm::slurm
