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
  PreflightGate gate(**client);

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

}  // namespace
}  // namespace tpslurm::reconcile::testing
