// Per-user mode against the simulator: every call about a job goes as the job's user. The
// service identity here is an ordinary user ("tuneplane"), with tokens minted from the
// cluster's key for it and for each job's user (slurm::MintingTokenSource): Slurm lets an
// ordinary user release and cancel only its own jobs, so a call about a job that went as the
// service identity would be refused, and a job submitted as it would run as it.
#include "reconcile_fixture.h"

namespace tpslurm::reconcile::testing {
namespace {

using model::AttemptState;

class PerUserTest : public ReconcileTest {
 protected:
  void SetUp() override {
    minting_service_user = "tuneplane";
    settings.account = "site-account";
    settings.qos = "site-qos";
    start();
  }
};

// A per-user job whose request names no account is charged the account fixed for it at
// acceptance (its user's first; the fixture journals "acct-<user>"), not the site's, and the
// site's QoS is not asked for it; a job of the service identity keeps the site's.
TEST_F(PerUserTest, AJobIsChargedItsUsersAccountNotTheSites) {
  add_job("pu-alice", Shape::cpu_only, 1, "alice");
  add_job("pu-service", Shape::cpu_only);
  once();
  const auto alice = sim_view(*attempt("pu-alice").slurm_job_id);
  EXPECT_EQ(alice.at("account").as_string(), "acct-alice") << alice;
  EXPECT_EQ(alice.at("qos").as_string(), "") << alice;
  const auto service = sim_view(*attempt("pu-service").slurm_job_id);
  EXPECT_EQ(service.at("account").as_string(), "site-account") << service;
  EXPECT_EQ(service.at("qos").as_string(), "site-qos") << service;
}

TEST_F(PerUserTest, EachJobIsSubmittedIdentifiedReleasedAndCancelledAsItsUser) {
  add_job("pu-alice", Shape::gpu_single, 1, "alice");
  add_job("pu-bob", Shape::three_pools, 1, "bob");
  add_job("pu-service", Shape::cpu_only);
  once();
  for (const auto& [job_id, user] : {std::pair<std::string, std::string>{"pu-alice", "alice"},
                                     {"pu-bob", "bob"},
                                     {"pu-service", "tuneplane"}}) {
    const auto a = attempt(job_id);
    ASSERT_EQ(a.state, AttemptState::pending) << job_id << ": " << a.outcome_reason;
    ASSERT_FALSE(a.released_at.empty()) << job_id;
    for (const auto& record : slurm_jobs(job_id)) {
      const auto view = sim_view(record.job_id);
      EXPECT_EQ(view.at("user").as_string(), user) << job_id << ": " << view;
      EXPECT_FALSE(view.at("hold").as_bool()) << job_id << ": released by its user";
    }
  }
  EXPECT_EQ(attempt("pu-alice").unix_user, "alice");

  set_desire_cancel("pu-alice");
  set_desire_cancel("pu-bob");
  once();
  EXPECT_EQ(attempt("pu-alice").state, AttemptState::cancelled) << attempt("pu-alice").outcome_reason;
  EXPECT_EQ(attempt("pu-bob").state, AttemptState::cancelled) << attempt("pu-bob").outcome_reason;
  for (const std::string job_id : {"pu-alice", "pu-bob"}) {
    for (const auto& record : slurm_jobs(job_id)) {
      EXPECT_EQ(sim_view(record.job_id).at("state"), "CANCELLED") << job_id << ": " << sim_view(record.job_id);
    }
  }
}

// A lost answer in per-user mode: nothing is sent again; the service identity's listing finds
// the user's job by its tag (Slurm without PrivateData=jobs shows every user's jobs to any
// user; docs/operators-guide.md), and the job is then identified and released as its user.
TEST_F(PerUserTest, ALostAnswerIsFoundByItsTagAndTheJobReleasedAsItsUser) {
  fault(R"({"kind": "drop_response", "method": "POST", "path_prefix": "/slurm/v0.0.45/job/submit"})");
  add_job("pu-lost", Shape::three_pools, 1, "alice");
  once();
  const auto a = attempt("pu-lost");
  ASSERT_EQ(a.state, AttemptState::pending) << a.outcome_reason;
  EXPECT_EQ(a.found_by, "search");
  EXPECT_FALSE(a.released_at.empty());
  EXPECT_EQ(sim->stat("submits_received"), 1) << "nothing is sent again after a lost answer";
  EXPECT_EQ(slurm_job_count("pu-lost"), 1);
  for (const auto& record : slurm_jobs("pu-lost")) {
    const auto view = sim_view(record.job_id);
    EXPECT_EQ(view.at("user").as_string(), "alice") << view;
    EXPECT_FALSE(view.at("hold").as_bool()) << view;
  }
}

}  // namespace
}  // namespace tpslurm::reconcile::testing
