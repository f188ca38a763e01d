// The client with `auto` against the simulator impersonating the releases from 23.11 to 24.11:
// it picks each release's newest version and follows that release's rules through a job's
// life — a held heterogeneous submit (with a top-level script on 23.11.4), the release of
// each component, polls (by update_time where 23.11.4 binds no jobs/state), a search by tag,
// and cancels answered in errors[] (23.11, 24.05) or a status list (24.11).
#include <gtest/gtest.h>

#include <array>

#include "sim_client_support.h"

namespace tpslurm::slurm {
namespace {

using model::SlurmBaseState;
using testing::held_het;
using testing::sim_description;

struct OldRelease {
  std::string release;  // --release
  std::string dialect;  // what auto must choose
};

std::string PrintToString(const OldRelease& old) { return old.release; }

class SimOldReleaseTest : public testing::SimClientTest, public ::testing::WithParamInterface<OldRelease> {
 protected:
  void SetUp() override {
    start({"--release", GetParam().release}, "auto");
    const ServerResult server = m_client->detect();
    ASSERT_EQ(server.outcome, Outcome::ok) << server.message;
    ASSERT_EQ(server.dialect, GetParam().dialect);
    ASSERT_EQ(server.release, GetParam().release);
  }
  bool early_2311() const { return GetParam().release == "23.11.4"; }
};

TEST_P(SimOldReleaseTest, AHeldHetJobIsSubmittedReleasedPolledAndFound) {
  auto_start();
  const auto description = held_het("tp-old-" + GetParam().dialect.substr(5));
  const SubmitResult submitted = m_client->submit(description);
  ASSERT_EQ(submitted.outcome, Outcome::ok) << submitted.message;
  const std::uint32_t leader = *submitted.job_id;
  advance(std::chrono::seconds(5));
  EXPECT_EQ(states(leader), (std::vector{SlurmBaseState::pending, SlurmBaseState::pending})) << "held";

  const ReleaseResult released = m_client->release_hold({leader, "", description.tag});
  ASSERT_EQ(released.outcome, Outcome::ok) << released.message;
  EXPECT_EQ(m_sim->route_count("POST /slurm/" + GetParam().dialect + "/job/{job_id}"), 2)
      << "each component is released by itself";
  advance(std::chrono::seconds(2));
  EXPECT_EQ(states(leader), (std::vector{SlurmBaseState::running, SlurmBaseState::running}));

  const std::array<std::uint32_t, 1> ids{leader};
  const BulkStateResult polled = m_client->bulk_state(ids);
  ASSERT_TRUE(polled.ok()) << polled.message;
  ASSERT_FALSE(polled.states.empty());
  EXPECT_EQ(polled.states.front().state.base, SlurmBaseState::running);
  EXPECT_EQ(m_sim->route_count("GET /slurm/" + GetParam().dialect + "/jobs/state") > 0, !early_2311())
      << "23.11.4 polls with jobs?update_time=, the others with jobs/state";

  const SearchResult found = m_client->find_jobs_by_tag(description.tag, m_clock.now() - std::chrono::minutes(5));
  ASSERT_TRUE(found.ok()) << found.message;
  EXPECT_TRUE(found.complete()) << "slurmctld and slurmdbd both answered";
  ASSERT_FALSE(found.matches.empty());
  EXPECT_EQ(found.matches.front().job.job_id, leader);
}

TEST_P(SimOldReleaseTest, CancelAnswersAreReadInTheReleasesShape) {
  auto description = sim_description("tp-old-cancel");
  description.hold = true;
  const SubmitResult submitted = m_client->submit(description);
  ASSERT_EQ(submitted.outcome, Outcome::ok) << submitted.message;
  const JobRef job{*submitted.job_id, "", description.tag};

  const CancelResult usr1 = m_client->cancel(job, "SIGUSR1");
  EXPECT_EQ(usr1.outcome, Outcome::rejected_transient) << usr1.message;
  EXPECT_TRUE(usr1.not_running) << "a signal other than KILL to a pending job: 2020";

  const CancelResult killed = m_client->cancel(job);
  EXPECT_EQ(killed.outcome, Outcome::ok) << killed.message;
  advance(std::chrono::seconds(2));
  EXPECT_TRUE(m_client->get_job({job.job_id, ""}).jobs.front().state.base_is_final());

  const CancelResult unknown = m_client->cancel(JobRef{987654});
  EXPECT_EQ(unknown.outcome, Outcome::not_found) << unknown.message;
}

TEST_P(SimOldReleaseTest, APreflightAuthenticatesOnEveryRelease) {
  const CallResult preflight = m_client->preflight();
  EXPECT_EQ(preflight.outcome, Outcome::ok) << preflight.message;
  EXPECT_EQ(m_sim->route_count("GET /slurm/" + GetParam().dialect + (early_2311() ? "/diag" : "/jobs/state")), 1);
}

INSTANTIATE_TEST_SUITE_P(Releases, SimOldReleaseTest,
                         ::testing::Values(OldRelease{"23.11.4", "v0.0.40"}, OldRelease{"23.11.11", "v0.0.40"},
                                           OldRelease{"24.05.8", "v0.0.41"}, OldRelease{"24.11.7", "v0.0.42"}),
                         [](const auto& param_info) {
                           std::string name = "on_" + param_info.param.release;
                           for (char& ch : name) {
                             if (ch == '.') ch = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace tpslurm::slurm
