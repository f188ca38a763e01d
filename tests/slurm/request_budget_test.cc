// RequestBudget: the calls of one-second windows, the adaptive rate, the back-off after errors
// and a submit's reservation, driven by a manual clock (no sleeping), and through the client: a
// refused call is `not_sent` and never reaches the transport; a reserved submit is not counted
// twice; a slow answer halves the rate.
#include "slurm/request_budget.h"

#include <gtest/gtest.h>

#include <thread>

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

TEST_F(RequestBudgetTest, GrantsAtMostTheCallsOfOneWindowAndBeginCycleStartsANewOne) {
  RequestBudget budget(m_clock, BudgetLimits{3});
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(budget.admit().granted);
    budget.record(Outcome::ok);
  }
  const Admission refused = budget.admit();
  EXPECT_FALSE(refused.granted);
  EXPECT_EQ(refused.reason, "request budget: all 3 calls of this second are used");
  EXPECT_EQ(refused.retry_at, m_clock.now() + seconds(1));
  EXPECT_EQ(budget.used_this_window(), 3);
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
  EXPECT_TRUE(budget.refused_submit_until(0)) << "3 used, 4 promised: nothing left for a submit";
  const Reserved third = budget.reserve_submit(0);
  EXPECT_FALSE(third.admission.granted);
  EXPECT_FALSE(third.reservation.held());
  EXPECT_EQ(third.admission.reason,
            "request budget: the 4 call(s) left in this second are kept for the jobs already in Slurm and the submits "
            "made");
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(budget.admit().granted) << "identify, release, cancel: call " << i;
  EXPECT_FALSE(budget.admit().granted);
  budget.begin_cycle();
  EXPECT_FALSE(budget.refused_submit_until(2)) << "a new window promises nothing yet";
}

TEST_F(RequestBudgetTest, CallsThatKeepAPromiseMakeNoRoomForMoreSubmits) {
  RequestBudget budget(m_clock, BudgetLimits{6});
  Reserved submit = budget.reserve_submit(2);
  ASSERT_TRUE(submit.admission.granted);
  submit.reservation.spend();
  ASSERT_TRUE(budget.admit().granted) << "its identify";
  ASSERT_TRUE(budget.admit().granted) << "its release";
  EXPECT_FALSE(budget.refused_submit_until(2)) << "3 used, nothing promised: one more submit and its 2";
  EXPECT_TRUE(budget.refused_submit_until(3));
}

TEST_F(RequestBudgetTest, ASubmitFitsAWindowSmallerThanItsFollowUps) {
  RequestBudget budget(m_clock, BudgetLimits{2});
  Reserved reserved = budget.reserve_submit(2);
  EXPECT_TRUE(reserved.admission.granted) << "a budget of 2 still lets a submit through, first in its window";
  EXPECT_FALSE(budget.reserve_submit(2).admission.granted);
}

TEST_F(RequestBudgetTest, AnUnusedReservationGivesItsCallBackToItsOwnWindowOnly) {
  RequestBudget budget(m_clock, BudgetLimits{10});
  {
    Reserved dropped = budget.reserve_submit(0);
    ASSERT_TRUE(dropped.admission.granted);
    EXPECT_EQ(budget.used_this_window(), 1);
  }
  EXPECT_EQ(budget.used_this_window(), 0) << "the step stopped before sending: the call is back";
  Reserved old = budget.reserve_submit(0);
  budget.begin_cycle();
  ASSERT_TRUE(budget.admit().granted);
  old.reservation = Reservation{};  // dropped unused, a window late
  EXPECT_EQ(budget.used_this_window(), 1) << "a reservation of the last window takes nothing from this one";
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
  EXPECT_EQ(BudgetLimits{0}.check().error().message(), "request budget: calls_per_second 0 must be at least 1");
  EXPECT_EQ((BudgetLimits{10, milliseconds(0)}).check().error().message(),
            "request budget: initial_backoff must be at least 1 ms");
  EXPECT_EQ((BudgetLimits{10, seconds(10), seconds(1)}).check().error().message(),
            "request budget: max_backoff must not be shorter than initial_backoff");
  EXPECT_EQ((BudgetLimits{10, seconds(1), seconds(10), 0.5}).check().error().message(),
            "request budget: multiplier must be at least 1");
  BudgetLimits never;
  never.failures_before_backoff = 0;
  EXPECT_EQ(never.check().error().message(), "request budget: failures_before_backoff 0 must be at least 1");
  BudgetLimits no_floor;
  no_floor.floor_per_second = 0;
  EXPECT_EQ(no_floor.check().error().message(), "request budget: floor_per_second 0 must be at least 1");
  BudgetLimits never_slow;
  never_slow.slow_answer = milliseconds(0);
  EXPECT_EQ(never_slow.check().error().message(), "request budget: slow_answer must be at least 1 ms");
  BudgetLimits any_slower;
  any_slower.slow_factor = 1;
  EXPECT_EQ(any_slower.check().error().message(), "request budget: slow_factor 1 must be 0 (off) or 2 to 1000");
  any_slower.slow_factor = 0;
  EXPECT_TRUE(any_slower.check().ok()) << "0 turns the rule off";
  EXPECT_TRUE(BudgetLimits{}.check().ok());
}

TEST_F(RequestBudgetTest, AWindowIsOneSecondAndItsRefusalSaysWhenTheNextBegins) {
  RequestBudget budget(m_clock, BudgetLimits{2});
  ASSERT_TRUE(budget.admit().granted);
  m_clock.advance(milliseconds(400));
  ASSERT_TRUE(budget.admit().granted);
  const TimePoint next = m_clock.now() + milliseconds(600);
  EXPECT_EQ(budget.refused_until(), next);
  EXPECT_EQ(budget.admit().retry_at, next);
  m_clock.advance(milliseconds(599));
  EXPECT_FALSE(budget.admit().granted);
  m_clock.advance(milliseconds(1));
  EXPECT_FALSE(budget.refused_until());
  EXPECT_TRUE(budget.admit().granted) << "a new second";
  m_clock.set(m_clock.now() - std::chrono::hours(1));
  EXPECT_FALSE(budget.refused_until()) << "a clock stepped back starts a new window, never waits an hour";
  EXPECT_TRUE(budget.admit().granted);
}

// As TCP's window: halved by a slow or failed answer, at most once a second, never below the
// floor; grown back by a tenth of the ceiling for each second's worth of quick answers.
TEST_F(RequestBudgetTest, ASlowOrFailedAnswerHalvesTheRateOnceASecondDownToTheFloor) {
  BudgetLimits limits{100};
  limits.floor_per_second = 20;
  limits.slow_answer = seconds(1);
  RequestBudget budget(m_clock, limits);
  EXPECT_EQ(budget.rate(), 100) << "it starts at the ceiling";
  budget.record(Outcome::ok, milliseconds(1001));
  EXPECT_EQ(budget.rate(), 50) << "a slow answer";
  budget.record(Outcome::uncertain, milliseconds(3));
  EXPECT_EQ(budget.rate(), 50) << "the same second: the calls that were out say the same";
  m_clock.advance(seconds(1));
  budget.record(Outcome::rejected_transient, milliseconds(3));
  EXPECT_EQ(budget.rate(), 25) << "a failed answer";
  m_clock.advance(seconds(1));
  budget.record(Outcome::ok, seconds(5));
  EXPECT_EQ(budget.rate(), 20) << "never below the floor";
  budget.record(Outcome::ok, milliseconds(1000));
  budget.record(Outcome::rejected, milliseconds(2));
  budget.record(Outcome::not_found, milliseconds(2));
  EXPECT_GT(budget.rate(), 20) << "an answer at the limit, a rejection and a 404 are quick answers";
}

// slurmctld's queue grows long before an answer takes a second: a call about one job answered
// after 8 times its kind's quickest of the last 10 to 20 s (and after 10 ms) is late. A late
// answer does not grow the rate; a second in which half of the answers about one job (at least
// 8) are late halves it.
TEST_F(RequestBudgetTest, LateAnswersStopTheRateGrowingAndALateHalfOfASecondsHalvesIt) {
  RequestBudget budget(m_clock, BudgetLimits{100});
  budget.record(Outcome::uncertain);
  ASSERT_EQ(budget.rate(), 50);
  m_clock.advance(seconds(1));
  budget.record(Outcome::ok, milliseconds(2), "read");
  for (int i = 0; i < 5; ++i) budget.record(Outcome::ok, milliseconds(17), "read");
  EXPECT_EQ(budget.rate(), 50) << "late answers do not grow it (quick ones would: 1 more), and 6 are too few to judge";
  budget.record(Outcome::ok, milliseconds(17), "read");
  budget.record(Outcome::ok, milliseconds(17), "read");
  EXPECT_EQ(budget.rate(), 25) << "7 of the second's 8 answers are late";

  RequestBudget noisy(m_clock, BudgetLimits{100});
  for (int i = 0; i < 9; ++i) noisy.record(Outcome::ok, milliseconds(i % 3 == 2 ? 40 : 2), "read");
  EXPECT_EQ(noisy.rate(), 100) << "3 late of 9: the controller's own work now and then";
  for (int i = 0; i < 2; ++i) noisy.record(Outcome::ok, milliseconds(40), "read");
  EXPECT_EQ(noisy.rate(), 100) << "5 late of 11";
  noisy.record(Outcome::ok, milliseconds(40), "read");
  EXPECT_EQ(noisy.rate(), 50) << "6 late of 12: half";
}

TEST_F(RequestBudgetTest, LateIsJudgedAgainstTheQuickestOfTheSameKindAndNeverForAListing) {
  RequestBudget budget(m_clock, BudgetLimits{100});
  budget.record(Outcome::ok, milliseconds(2), "read");
  budget.record(Outcome::ok, milliseconds(9), "submit");
  for (int i = 0; i < 10; ++i) budget.record(Outcome::ok, milliseconds(70), "submit");
  EXPECT_EQ(budget.rate(), 100) << "70 ms after a submit of 9 ms is not late, though reads take 2 ms";
  for (int i = 0; i < 10; ++i) budget.record(Outcome::ok, milliseconds(900));
  EXPECT_EQ(budget.rate(), 100) << "a listing is judged by the slow answer alone";
  RequestBudget quick(m_clock, BudgetLimits{100});
  for (int i = 0; i < 10; ++i) quick.record(Outcome::ok, milliseconds(i == 0 ? 0 : 10), "read");
  EXPECT_EQ(quick.rate(), 100) << "10 ms is never late, however quick the quickest";
}

// Eight answers about one job of `kind` that each took `took`, in the same second.
void eight(RequestBudget& budget, std::string_view kind, milliseconds took) {
  for (int i = 0; i < 8; ++i) budget.record(Outcome::ok, took, kind);
}

TEST_F(RequestBudgetTest, TheQuickestOfAKindIsForgottenAfterTenToTwentySeconds) {
  BudgetLimits limits{100};
  limits.slow_answer = std::chrono::minutes(1);  // every answer below is judged against its kind
  RequestBudget budget(m_clock, limits);
  budget.record(Outcome::ok, milliseconds(2), "release");
  m_clock.advance(seconds(11));
  eight(budget, "release", milliseconds(30));
  EXPECT_EQ(budget.rate(), 50) << "the 10 s before still count";
  m_clock.advance(seconds(10));
  eight(budget, "release", milliseconds(30));
  EXPECT_GT(budget.rate(), 50) << "2 ms is forgotten; 30 ms is the quickest now";
  const int grown = budget.rate();
  m_clock.advance(seconds(25));
  eight(budget, "release", milliseconds(250));
  EXPECT_GE(budget.rate(), grown) << "nothing for 20 s: every quickest is forgotten (250 ms is late after 30)";
  m_clock.set(m_clock.now() - std::chrono::hours(1));
  eight(budget, "release", milliseconds(2500));
  EXPECT_GE(budget.rate(), grown) << "a clock stepped back forgets too (2.5 s is late after 250 ms)";

  BudgetLimits off;
  off.slow_factor = 0;
  RequestBudget absolute(m_clock, off);
  eight(absolute, "read", milliseconds(1));
  eight(absolute, "read", milliseconds(500));
  EXPECT_EQ(absolute.rate(), 1000) << "the rule turned off";
}

TEST_F(RequestBudgetTest, QuickAnswersGrowTheRateBackToTheCeilingAndNeverAbove) {
  RequestBudget budget(m_clock, BudgetLimits{100});
  budget.record(Outcome::uncertain);
  ASSERT_EQ(budget.rate(), 50);
  for (int i = 0; i < 50; ++i) budget.record(Outcome::ok, milliseconds(5));
  EXPECT_GE(budget.rate(), 58) << "one second's worth of quick answers: about a tenth of the ceiling more";
  EXPECT_LE(budget.rate(), 60);
  for (int i = 0; i < 10'000; ++i) budget.record(Outcome::ok, milliseconds(5));
  EXPECT_EQ(budget.rate(), 100);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(budget.admit().granted) << i;
  EXPECT_FALSE(budget.admit().granted) << "a window holds as many calls as the rate";
}

TEST_F(RequestBudgetTest, AWindowHoldsAsManyCallsAsTheRateOfNow) {
  BudgetLimits limits{8};
  limits.floor_per_second = 2;
  RequestBudget budget(m_clock, limits);
  budget.record(Outcome::uncertain);
  ASSERT_EQ(budget.rate(), 4);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(budget.admit().granted) << i;
  const Admission refused = budget.admit();
  EXPECT_FALSE(refused.granted);
  EXPECT_EQ(refused.reason, "request budget: all 4 calls of this second are used");
}

TEST_F(RequestBudgetTest, ACeilingBelowTheFloorIsTheRateThroughout) {
  BudgetLimits limits{5};
  limits.floor_per_second = 10;
  RequestBudget budget(m_clock, limits);
  budget.record(Outcome::uncertain);
  EXPECT_EQ(budget.rate(), 5);
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
  EXPECT_EQ(budget.used_this_window(), 1);
  EXPECT_EQ(transport.requests().size(), 1u);

  NoTokens no_tokens;
  auto without = RestClient::create(transport, no_tokens, "v0.0.45", options);
  ASSERT_TRUE(without.ok());
  Reserved again = budget.reserve_submit(2);
  ASSERT_TRUE(again.admission.granted);
  EXPECT_EQ(budget.used_this_window(), 2);
  EXPECT_EQ((*without)->submit(testing::cpu_description(), std::move(again.reservation)).outcome, Outcome::auth);
  EXPECT_EQ(budget.used_this_window(), 1) << "nothing was sent: the call is back";
  EXPECT_EQ(transport.requests().size(), 1u);
}

// Waits `delay` before each answer of the transport it wraps.
class SlowTransport final : public Transport {
 public:
  SlowTransport(Transport& inner, milliseconds delay) : m_inner(inner), m_delay(delay) {}
  HttpExchange perform(const HttpRequest& request) override {
    std::this_thread::sleep_for(m_delay);
    return m_inner.perform(request);
  }
  std::string endpoint() const override { return m_inner.endpoint(); }

 private:
  Transport& m_inner;
  milliseconds m_delay;
};

// Through the client: how long an answer took is what the budget hears.
TEST_F(RequestBudgetTest, TheClientTellsTheBudgetHowLongAnAnswerTook) {
  testing::FakeTransport transport;
  testing::StaticTokenSource tokens;
  transport.answer("/slurm/v0.0.45/job/12", 200, R"({"jobs": [], "errors": [], "warnings": []})");
  BudgetLimits limits{100};
  limits.slow_answer = milliseconds(1);
  RequestBudget budget(m_clock, limits);
  RestClientOptions options;
  options.clock = &m_clock;
  options.budget = &budget;
  SlowTransport slow(transport, milliseconds(5));
  auto slowly = RestClient::create(slow, tokens, "v0.0.45", options);
  ASSERT_TRUE(slowly.ok());
  (void)(*slowly)->get_job({12, ""});
  EXPECT_EQ(budget.rate(), 50) << "an answer after 5 ms, slow at 1 ms";

  RequestBudget patient(m_clock, BudgetLimits{100});
  options.budget = &patient;
  auto quickly = RestClient::create(transport, tokens, "v0.0.45", options);
  ASSERT_TRUE(quickly.ok());
  (void)(*quickly)->get_job({12, ""});
  EXPECT_EQ(patient.rate(), 100) << "a quick answer (slow is 1 s by default)";
}

// Through the client: reads of one job are compared with the quickest read; listings are not.
TEST_F(RequestBudgetTest, TheClientNamesTheKindOfACallAboutOneJob) {
  testing::FakeTransport transport;
  testing::StaticTokenSource tokens;
  transport.answer("/slurm/v0.0.45/job/12", 200, R"({"jobs": [], "errors": [], "warnings": []})");
  transport.answer("/slurm/v0.0.45/jobs", 200, R"({"jobs": [], "errors": [], "warnings": []})");
  RequestBudget budget(m_clock, BudgetLimits{100});
  RestClientOptions options;
  options.clock = &m_clock;
  options.budget = &budget;
  auto quickly = RestClient::create(transport, tokens, "v0.0.45", options);
  SlowTransport slow(transport, milliseconds(60));
  auto slowly = RestClient::create(slow, tokens, "v0.0.45", options);
  ASSERT_TRUE(quickly.ok() && slowly.ok());
  for (int i = 0; i < 8; ++i) (void)(i < 4 ? *quickly : *slowly)->jobs_changed_since(std::nullopt);
  EXPECT_EQ(budget.rate(), 100) << "listings after 60 ms, the quickest well under";
  for (int i = 0; i < 8; ++i) (void)(i < 4 ? *quickly : *slowly)->get_job({12, ""});
  EXPECT_EQ(budget.rate(), 50) << "4 of 8 reads after 60 ms, the quickest well under";
}

}  // namespace
}  // namespace tpslurm::slurm
