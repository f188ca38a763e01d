// The pre-flight gate against the simulator: an answer from the server is kept for the cycle,
// but one the request budget refused before anything was sent is not — the next submit of the
// same cycle asks again once the back-off is over, instead of waiting a whole poll interval.
#include "reconcile/preflight_gate.h"

#include <gtest/gtest.h>

#include "../slurm/sim_process.h"
#include "base/clock.h"
#include "slurm/curl_transport.h"
#include "slurm/request_budget.h"
#include "slurm/rest_client.h"

namespace tpslurm::reconcile::testing {
namespace {

TEST(PreflightGateTest, AnAnswerIsKeptForTheCycleButARefusalBeforeSendingIsAskedAgain) {
  auto sim = slurm::testing::SimProcess::start({"--release", "22.05.8"});
  ASSERT_TRUE(sim.ok()) << sim.error().message();
  slurm::CurlTransportOptions options;
  options.url = (*sim)->url();
  auto transport = slurm::CurlTransport::create(options);
  ASSERT_TRUE(transport.ok());
  auto tokens = (*sim)->tokens();
  ManualClock clock(SystemClock().now());
  slurm::RequestBudget budget(clock, {});
  slurm::RestClientOptions client_options;
  client_options.clock = &clock;
  client_options.budget = &budget;
  auto client = slurm::RestClient::create(**transport, *tokens, "v0.0.38", client_options);
  ASSERT_TRUE(client.ok()) << client.error().message();
  PreflightGate gate(**client, clock);

  // Two failed calls in a row start the budget's back-off: the pre-flight is refused before
  // sending.
  ASSERT_TRUE((*sim)
                  ->add_fault(R"({"kind": "error_response", "status": 500, "method": "GET",
                                    "path_prefix": "/slurm/v0.0.38/jobs", "count": 2})")
                  .ok());
  EXPECT_FALSE((*client)->jobs_changed_since(std::nullopt).ok());
  EXPECT_FALSE((*client)->jobs_changed_since(std::nullopt).ok());
  const slurm::CallResult refused = gate.check();
  EXPECT_EQ(refused.outcome, slurm::Outcome::not_sent) << refused.message;
  EXPECT_NE(refused.message.find("backing off"), std::string::npos) << refused.message;

  // The back-off is over, same cycle: asked again, answered, and that answer is kept.
  clock.advance(std::chrono::seconds(5));
  const slurm::CallResult answered = gate.check();
  EXPECT_TRUE(answered.ok()) << answered.message;
  EXPECT_TRUE(gate.check().ok());
  EXPECT_EQ(gate.calls(), 2);
}

// The budget's back-off lets one call through as a probe once it has passed: that probe is the
// pre-flight's read, even when an answer is kept for the cycle, never a submit's POST.
TEST(PreflightGateTest, AfterTheBudgetsBackOffTheProbeIsThePreflightNotASubmit) {
  auto sim = slurm::testing::SimProcess::start({"--release", "22.05.8"});
  ASSERT_TRUE(sim.ok()) << sim.error().message();
  slurm::CurlTransportOptions options;
  options.url = (*sim)->url();
  auto transport = slurm::CurlTransport::create(options);
  ASSERT_TRUE(transport.ok());
  auto tokens = (*sim)->tokens();
  ManualClock clock(SystemClock().now());
  slurm::RequestBudget budget(clock, {});
  slurm::RestClientOptions client_options;
  client_options.clock = &clock;
  client_options.budget = &budget;
  auto client = slurm::RestClient::create(**transport, *tokens, "v0.0.38", client_options);
  ASSERT_TRUE(client.ok()) << client.error().message();
  PreflightGate gate(**client, clock);
  ASSERT_TRUE(gate.check().ok());

  ASSERT_TRUE((*sim)
                  ->add_fault(R"({"kind": "error_response", "status": 500, "method": "GET",
                                    "path_prefix": "/slurm/v0.0.38/jobs", "count": 2})")
                  .ok());
  EXPECT_FALSE((*client)->jobs_changed_since(std::nullopt).ok());
  EXPECT_FALSE((*client)->jobs_changed_since(std::nullopt).ok());
  ASSERT_TRUE(budget.backing_off_until().has_value());
  clock.advance(std::chrono::seconds(5));
  EXPECT_TRUE(gate.check().ok());
  EXPECT_EQ(gate.calls(), 2) << "the kept answer was not used while the budget backed off";
  EXPECT_FALSE(budget.backing_off_until().has_value()) << "the pre-flight was the probe, and it ended the back-off";
}

// A submit answer that does not settle its submit makes the next submit ask again; from the
// second such answer in a row on, submits hold off, doubling, until one settles.
TEST(PreflightGateTest, UnsettledSubmitAnswersMakeTheNextSubmitAskAgainThenHoldOff) {
  auto sim = slurm::testing::SimProcess::start({});
  ASSERT_TRUE(sim.ok()) << sim.error().message();
  slurm::CurlTransportOptions options;
  options.url = (*sim)->url();
  auto transport = slurm::CurlTransport::create(options);
  ASSERT_TRUE(transport.ok());
  auto tokens = (*sim)->tokens();
  ManualClock clock(SystemClock().now());
  auto client = slurm::RestClient::create(**transport, *tokens, "v0.0.45", {});
  ASSERT_TRUE(client.ok()) << client.error().message();
  PreflightGate gate(**client, clock);
  ASSERT_TRUE(gate.check().ok());
  ASSERT_TRUE(gate.check().ok());
  EXPECT_EQ(gate.calls(), 1);

  gate.note_submit(slurm::Outcome::uncertain);
  EXPECT_FALSE(gate.holding_until().has_value()) << "one unsettled answer is that submit's own";
  ASSERT_TRUE(gate.check().ok());
  EXPECT_EQ(gate.calls(), 2) << "asked again after an unsettled answer";

  gate.note_submit(slurm::Outcome::auth);
  ASSERT_TRUE(gate.holding_until().has_value());
  EXPECT_EQ(*gate.holding_until() - clock.now(), std::chrono::seconds(1));
  gate.note_submit(slurm::Outcome::uncertain);
  EXPECT_EQ(*gate.holding_until() - clock.now(), std::chrono::seconds(2));
  clock.set(clock.now() - std::chrono::hours(1));
  EXPECT_EQ(*gate.holding_until() - clock.now(), std::chrono::seconds(2)) << "a clock stepped back never stretches it";

  gate.note_submit(slurm::Outcome::ok);
  EXPECT_FALSE(gate.holding_until().has_value());
}

}  // namespace
}  // namespace tpslurm::reconcile::testing
