// The pre-flight gate against the simulator: an answer from the server is kept for the cycle,
// but one the request budget refused before anything was sent is not — the next submit of the
// same cycle asks again once the back-off is over, instead of waiting a whole poll interval;
// the budget's probe is the pre-flight; unsettled submit answers make it ask again, then hold.
#include "reconcile/preflight_gate.h"

#include <gtest/gtest.h>

#include <memory>

#include "../slurm/sim_process.h"
#include "base/clock.h"
#include "slurm/curl_transport.h"
#include "slurm/request_budget.h"
#include "slurm/rest_client.h"

namespace tpslurm::reconcile::testing {
namespace {

// The simulator (`release`), a client speaking `dialect` on a hand-driven clock, with a request
// budget when `budgeted`, and the gate over them.
class PreflightGateTest : public ::testing::Test {
 protected:
  void start(const std::string& release, const std::string& dialect, bool budgeted) {
    auto sim = slurm::testing::SimProcess::start({"--release", release});
    ASSERT_TRUE(sim.ok()) << sim.error().message();
    m_sim = std::move(*sim);
    slurm::CurlTransportOptions options;
    options.url = m_sim->url();
    auto transport = slurm::CurlTransport::create(options);
    ASSERT_TRUE(transport.ok());
    m_transport = std::move(*transport);
    m_tokens = m_sim->tokens();
    slurm::RestClientOptions client_options;
    client_options.clock = &clock;
    if (budgeted) client_options.budget = &budget;
    auto client = slurm::RestClient::create(*m_transport, *m_tokens, dialect, client_options);
    ASSERT_TRUE(client.ok()) << client.error().message();
    m_client = std::move(*client);
    gate = std::make_unique<PreflightGate>(*m_client, clock);
  }
  // Two failed job listings in a row: the budget's back-off starts.
  void fail_twice() {
    ASSERT_TRUE(m_sim
                    ->add_fault(R"({"kind": "error_response", "status": 500, "method": "GET",
                                      "path_prefix": "/slurm/v0.0.38/jobs", "count": 2})")
                    .ok());
    EXPECT_FALSE(m_client->jobs_changed_since(std::nullopt).ok());
    EXPECT_FALSE(m_client->jobs_changed_since(std::nullopt).ok());
  }

  ManualClock clock{SystemClock().now()};
  slurm::RequestBudget budget{clock, {}};
  std::unique_ptr<PreflightGate> gate;

 private:
  std::unique_ptr<slurm::testing::SimProcess> m_sim;
  std::unique_ptr<slurm::CurlTransport> m_transport;
  std::unique_ptr<slurm::TokenSource> m_tokens;
  std::unique_ptr<slurm::RestClient> m_client;
};

TEST_F(PreflightGateTest, AnAnswerIsKeptForTheCycleButARefusalBeforeSendingIsAskedAgain) {
  start("22.05.8", "v0.0.38", true);
  // Two failed calls in a row start the budget's back-off: the pre-flight is refused before
  // sending.
  fail_twice();
  const slurm::CallResult refused = gate->check();
  EXPECT_EQ(refused.outcome, slurm::Outcome::not_sent) << refused.message;
  EXPECT_NE(refused.message.find("backing off"), std::string::npos) << refused.message;

  // The back-off is over, same cycle: asked again, answered, and that answer is kept.
  clock.advance(std::chrono::seconds(5));
  const slurm::CallResult answered = gate->check();
  EXPECT_TRUE(answered.ok()) << answered.message;
  EXPECT_TRUE(gate->check().ok());
  EXPECT_EQ(gate->calls(), 2);
}

// A failed pre-flight is logged once while it repeats (every prepared job of a sweep meets
// it), and again once a pre-flight passed or the failure changed.
TEST_F(PreflightGateTest, AFailureIsToldOnceWhileItRepeatsAndAgainAfterAPass) {
  start("22.05.8", "v0.0.38", true);
  EXPECT_TRUE(gate->tell_once("the token expired"));
  EXPECT_FALSE(gate->tell_once("the token expired"));
  EXPECT_TRUE(gate->tell_once("connection refused"));
  ASSERT_TRUE(gate->check().ok());
  EXPECT_TRUE(gate->tell_once("connection refused")) << "a pre-flight passed since it was told";
}

// The budget's back-off lets one call through as a probe once it has passed: that probe is the
// pre-flight's read, even when an answer is kept for the cycle, never a submit's POST.
TEST_F(PreflightGateTest, AfterTheBudgetsBackOffTheProbeIsThePreflightNotASubmit) {
  start("22.05.8", "v0.0.38", true);
  ASSERT_TRUE(gate->check().ok());
  fail_twice();
  ASSERT_TRUE(budget.backing_off_until().has_value());
  clock.advance(std::chrono::seconds(5));
  EXPECT_TRUE(gate->check().ok());
  EXPECT_EQ(gate->calls(), 2) << "the kept answer was not used while the budget backed off";
  EXPECT_FALSE(budget.backing_off_until().has_value()) << "the pre-flight was the probe, and it ended the back-off";
}

// A submit answer that does not settle its submit makes the next submit ask again; from the
// second such answer in a row on, submits hold off, doubling, until one settles.
TEST_F(PreflightGateTest, UnsettledSubmitAnswersMakeTheNextSubmitAskAgainThenHoldOff) {
  start("26.05.3", "v0.0.45", false);
  ASSERT_TRUE(gate->check().ok());
  ASSERT_TRUE(gate->check().ok());
  EXPECT_EQ(gate->calls(), 1);

  gate->note_submit(slurm::Outcome::uncertain);
  EXPECT_FALSE(gate->holding_until().has_value()) << "one unsettled answer is that submit's own";
  ASSERT_TRUE(gate->check().ok());
  EXPECT_EQ(gate->calls(), 2) << "asked again after an unsettled answer";

  gate->note_submit(slurm::Outcome::auth);
  ASSERT_TRUE(gate->holding_until().has_value());
  EXPECT_EQ(*gate->holding_until() - clock.now(), std::chrono::seconds(1));
  gate->note_submit(slurm::Outcome::uncertain);
  EXPECT_EQ(*gate->holding_until() - clock.now(), std::chrono::seconds(2));
  clock.set(clock.now() - std::chrono::hours(1));
  EXPECT_EQ(*gate->holding_until() - clock.now(), std::chrono::seconds(2)) << "a clock stepped back never stretches it";

  gate->note_submit(slurm::Outcome::ok);
  EXPECT_FALSE(gate->holding_until().has_value());
}

}  // namespace
}  // namespace tpslurm::reconcile::testing
