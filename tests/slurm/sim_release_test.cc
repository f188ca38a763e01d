// Held submits and release_hold end to end against a slurmrestd-sim process: a held job stays
// pending, a release makes it start, 22.05's held receipt (error 2042) is ok, v0.0.4x releases
// each het component, and ended, unknown or foreign jobs are answered as the client promises.
#include <gtest/gtest.h>

#include "sim_client_support.h"

namespace tpslurm::slurm {
namespace {

using model::SlurmBaseState;
using testing::held_het;
using testing::sim_description;

class SimReleaseTest : public testing::SimClientTest {
 protected:
  std::int64_t release_posts(const std::string& version) {
    return m_sim->route_count("POST /slurm/" + version + "/job/{job_id}");
  }
};

TEST_F(SimReleaseTest, V0045HeldHetJobIsReleasedComponentByComponentAndRuns) {
  start();
  auto_start();
  const auto description = held_het("tp-sim-held-1");
  const SubmitResult submitted = m_client->submit(description);
  ASSERT_EQ(submitted.outcome, Outcome::ok) << submitted.message;
  EXPECT_EQ(submitted.message,
            "POST /slurm/v0.0.45/job/submit: warning: Job is in held state, pending scheduler release");
  advance(std::chrono::seconds(5));
  EXPECT_EQ(states(*submitted.job_id), (std::vector{SlurmBaseState::pending, SlurmBaseState::pending}));

  const ReleaseResult released = m_client->release_hold({*submitted.job_id, "", description.tag});
  EXPECT_EQ(released.outcome, Outcome::ok) << released.message;
  EXPECT_FALSE(released.already_ended);
  EXPECT_EQ(release_posts("v0.0.45"), 2) << "25.05-26.05 release only the record addressed";
  EXPECT_EQ(m_sim->stat("updates_received"), 2);
  advance(std::chrono::seconds(1));
  EXPECT_EQ(states(*submitted.job_id), (std::vector{SlurmBaseState::running, SlurmBaseState::running}));
}

TEST_F(SimReleaseTest, V0038HeldSubmitIsOkWithError2042AndOnePostReleasesEveryComponent) {
  start({"--release", "22.05.8"}, "v0.0.38");
  auto_start();
  const auto description = held_het("tp-sim-held-2");
  const SubmitResult submitted = m_client->submit(description);
  ASSERT_EQ(submitted.outcome, Outcome::ok) << submitted.message;
  EXPECT_EQ(submitted.message,
            "POST /slurm/v0.0.38/job/submit: Job is in held state, pending scheduler release (error 2042)");
  const ReleaseResult released = m_client->release_hold({*submitted.job_id, ""});
  EXPECT_EQ(released.outcome, Outcome::ok) << released.message;
  EXPECT_EQ(release_posts("v0.0.38"), 1);
  advance(std::chrono::seconds(1));
  EXPECT_EQ(states(*submitted.job_id), (std::vector{SlurmBaseState::running, SlurmBaseState::running}));
}

TEST_F(SimReleaseTest, AnEndedJobIsAlreadyEndedAndAnUnknownOneNotFound) {
  start();
  const SubmitResult submitted = m_client->submit(held_het("tp-sim-held-3"));
  ASSERT_EQ(submitted.outcome, Outcome::ok) << submitted.message;
  control(HttpMethod::post, "/sim/jobs/" + std::to_string(*submitted.job_id) + "/state", R"({"state": "CANCELLED"})");
  const ReleaseResult ended = m_client->release_hold({*submitted.job_id, ""});
  EXPECT_EQ(ended.outcome, Outcome::ok) << ended.message;
  EXPECT_TRUE(ended.already_ended);
  const std::int64_t posts = release_posts("v0.0.45");
  const ReleaseResult unknown = m_client->release_hold({4242, ""});
  EXPECT_EQ(unknown.outcome, Outcome::not_found) << unknown.message;
  EXPECT_EQ(release_posts("v0.0.45"), posts) << "the read found no job: nothing is posted";
}

TEST_F(SimReleaseTest, V0038UnknownJobIsNotFound) {
  start({"--release", "22.05.8"}, "v0.0.38");
  const ReleaseResult unknown = m_client->release_hold({4242, ""});
  EXPECT_EQ(unknown.outcome, Outcome::not_found) << unknown.message;
  EXPECT_EQ(unknown.http_status, 500);
}

TEST_F(SimReleaseTest, AJobThatDoesNotCarryTheTagIsLeftHeld) {
  start();
  const SubmitResult submitted = m_client->submit(held_het("tp-sim-held-4"));
  ASSERT_EQ(submitted.outcome, Outcome::ok) << submitted.message;
  const model::JobTag other{"tp-sim-held-5", "tuneplane:tp-sim-held-5-token", "/shared/tp/a2"};
  const ReleaseResult refused = m_client->release_hold({*submitted.job_id, "", other});
  EXPECT_EQ(refused.outcome, Outcome::rejected);
  EXPECT_EQ(release_posts("v0.0.45"), 0);
  EXPECT_EQ(m_sim->control(HttpMethod::get, "/sim/jobs/" + std::to_string(*submitted.job_id))->at("hold"),
            boost::json::value(true));
}

}  // namespace
}  // namespace tpslurm::slurm
