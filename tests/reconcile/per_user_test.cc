// Per-user mode against the simulator: every call about a job goes as the job's user. The
// service identity here is an ordinary user ("tuneplane"), with tokens minted from the
// cluster's key for it and for each job's user (slurm::MintingTokenSource): Slurm lets an
// ordinary user release and cancel only its own jobs, so a call about a job that went as the
// service identity would be refused, and a job submitted as it would run as it. The jobs' Unix
// users are accounts every Debian host has ("daemon", "bin"): each attempt's files are given to
// its user by an ACL naming its uid (storage/user_acl.h), so the user must exist here.
#include <pwd.h>

#include "model/usage.h"
#include "reconcile_fixture.h"
#include "storage/user_acl.h"

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

  // A job of `daemon` whose submit answer is lost: found by its tag, identified and released
  // as its user, and nothing sent again.
  void expect_lost_answer_found(const std::string& job_id, Shape shape) {
    fault(R"({"kind": "drop_response", "method": "POST", "path_prefix": "/slurm/v0.0.45/job/submit"})");
    add_job(job_id, shape, 1, "daemon");
    once();
    const auto a = attempt(job_id);
    ASSERT_EQ(a.state, AttemptState::pending) << a.outcome_reason;
    EXPECT_EQ(a.found_by, "search");
    EXPECT_FALSE(a.released_at.empty());
    EXPECT_EQ(sim->stat("submits_received"), 1) << "nothing is sent again after a lost answer";
  }
};

// A per-user job whose request names no account is charged the account fixed for it at
// acceptance (its user's first; the fixture journals "acct-<user>"), not the site's, and the
// site's QoS is not asked for it; a job of the service identity keeps the site's.
TEST_F(PerUserTest, AJobIsChargedItsUsersAccountNotTheSites) {
  add_job("pu-daemon", Shape::cpu_only, 1, "daemon");
  add_job("pu-service", Shape::cpu_only);
  once();
  const auto alice = sim_view(*attempt("pu-daemon").slurm_job_id);
  EXPECT_EQ(alice.at("account").as_string(), "acct-daemon") << alice;
  EXPECT_EQ(alice.at("qos").as_string(), "") << alice;
  const auto service = sim_view(*attempt("pu-service").slurm_job_id);
  EXPECT_EQ(service.at("account").as_string(), "site-account") << service;
  EXPECT_EQ(service.at("qos").as_string(), "site-qos") << service;
}

TEST_F(PerUserTest, EachJobIsSubmittedIdentifiedReleasedAndCancelledAsItsUser) {
  add_job("pu-daemon", Shape::gpu_single, 1, "daemon");
  add_job("pu-bin", Shape::three_pools, 1, "bin");
  add_job("pu-service", Shape::cpu_only);
  once();
  for (const auto& [job_id, user] : {std::pair<std::string, std::string>{"pu-daemon", "daemon"},
                                     {"pu-bin", "bin"},
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
  EXPECT_EQ(attempt("pu-daemon").unix_user, "daemon");
  // Each attempt's directory is its user's to read, through an ACL entry naming it.
  for (const auto& [job_id, user] : {std::pair<std::string, std::string>{"pu-daemon", "daemon"}, {"pu-bin", "bin"}}) {
    auto entry = storage::user_entry(attempt(job_id).attempt_dir, ::getpwnam(user.c_str())->pw_uid);
    ASSERT_TRUE(entry.ok()) << entry.error().message();
    EXPECT_EQ(*entry, std::optional<unsigned>(5u)) << job_id;
  }

  set_desire_cancel("pu-daemon");
  set_desire_cancel("pu-bin");
  once();
  EXPECT_EQ(attempt("pu-daemon").state, AttemptState::cancelled) << attempt("pu-daemon").outcome_reason;
  EXPECT_EQ(attempt("pu-bin").state, AttemptState::cancelled) << attempt("pu-bin").outcome_reason;
  for (const std::string job_id : {"pu-daemon", "pu-bin"}) {
    for (const auto& record : slurm_jobs(job_id)) {
      EXPECT_EQ(sim_view(record.job_id).at("state"), "CANCELLED") << job_id << ": " << sim_view(record.job_id);
    }
  }
}

// A lost answer in per-user mode: nothing is sent again; the user's own listing finds its job
// by its tag, and the job is then identified and released as its user.
TEST_F(PerUserTest, ALostAnswerIsFoundByItsTagAndTheJobReleasedAsItsUser) {
  expect_lost_answer_found("pu-lost", Shape::three_pools);
  EXPECT_EQ(slurm_job_count("pu-lost"), 1);
  for (const auto& record : slurm_jobs("pu-lost")) {
    const auto view = sim_view(record.job_id);
    EXPECT_EQ(view.at("user").as_string(), "daemon") << view;
    EXPECT_FALSE(view.at("hold").as_bool()) << view;
  }
}

// PrivateData=jobs, with the service identity an ordinary user: slurmctld and slurmdbd show it
// no job of another user (a read of one answers "unknown"); each user still sees its own.
class PrivateJobsTest : public PerUserTest {
 protected:
  void SetUp() override {
    minting_service_user = "tuneplane";
    settings.account = "site-account";
  }
};

// A lost answer is searched for in its user's own listings. Searched as the service identity,
// every source would answer, empty: a complete search that finds nothing.
TEST_F(PrivateJobsTest, ALostAnswerIsFoundInItsUsersOwnListingsAndNothingIsSentAgain) {
  start({"--private-jobs"});
  expect_lost_answer_found("pj-lost", Shape::cpu_only);
  EXPECT_EQ(sim->stat("jobs_created"), 1);
}

// 22.05 polls with the full listing, from which PrivateData=jobs hides the job: each poll finds
// it absent, and the search that then looks for it goes in its user's own listings, finds it
// in slurmctld and waits. A job that runs is never taken for gone; its end and what it used are
// read from slurmdbd, as its user, once slurmctld has let it go.
TEST_F(PrivateJobsTest, On2205AJobThePollCannotSeeIsNeverTakenForGone) {
  start({"--private-jobs", "--release", "22.05.8"}, "v0.0.38");
  add_job("pj-run", Shape::cpu_only, 1, "daemon");
  once();
  ASSERT_FALSE(attempt("pj-run").released_at.empty()) << "identified and released as its user, by its id";
  const std::uint32_t id = *attempt("pj-run").slurm_job_id;
  step(id, R"({"state": "RUNNING"})");
  for (int i = 0; i < 4; ++i) {
    pass_local_time(std::chrono::minutes(5));
    once();
    const auto a = attempt("pj-run");
    ASSERT_FALSE(model::is_final(a.state)) << "cycle " << i << ": " << to_string(a.state) << ": " << a.outcome_reason;
  }
  step(id, R"({"state": "COMPLETED"})");
  advance_sim(600);  // past MinJobAge: slurmctld forgets it
  for (int i = 0; i < 3; ++i) {
    pass_local_time(std::chrono::minutes(5));
    once();
  }
  const auto a = attempt("pj-run");
  EXPECT_EQ(a.state, AttemptState::succeeded) << a.outcome_reason;
  EXPECT_NE(event_detail("pj-run", "succeeded").find("slurmdbd"), std::string::npos);
  EXPECT_EQ(sim->stat("submits_received"), 1);
  const auto usage = model::parse_usage(a.usage);
  ASSERT_TRUE(usage) << "usage journaled: " << a.usage;
  EXPECT_EQ(usage->components.size(), 1u) << a.usage;
}

}  // namespace
}  // namespace tpslurm::reconcile::testing
