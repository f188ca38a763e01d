// Against the real Slurm 22.05 on loopback that tools/local-slurm starts (tools/test exports
// `tools/local-slurm env`): submit, get, bulk state, cancel, refusals and auth, all through
// the v0.0.38 codec. Without that environment every test fails: it never skips.
#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

#include "slurm/curl_transport.h"
#include "slurm/doctor.h"
#include "slurm/jwt.h"
#include "slurm/jwt_source.h"
#include "slurm/rest_client.h"
#include "support/temp_dir.h"

namespace tpslurm::slurm {
namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

class RealSlurmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name :
         {"TUNEPLANE_SLURM_REST_URL", "TUNEPLANE_SLURM_REST_USER", "TUNEPLANE_SLURM_JWT_FILE",
          "TUNEPLANE_LOCAL_SLURM_KEY_FILE", "TUNEPLANE_SLURM_PARTITION", "TUNEPLANE_LOCAL_SLURM_GPU_CONSTRAINT",
          "TUNEPLANE_LOCAL_SLURM_CPU_CONSTRAINT", "TUNEPLANE_LOCAL_SLURM_GRES"}) {
      ASSERT_FALSE(env(name).empty()) << "the local Slurm is not up: " << name
                                      << " is not set; run tools/local-slurm up and export tools/local-slurm env";
    }
    m_settings.rest_url = env("TUNEPLANE_SLURM_REST_URL");
    m_settings.rest_api_version = "v0.0.38";
    m_settings.rest_user = env("TUNEPLANE_SLURM_REST_USER");
    m_settings.jwt_file = env("TUNEPLANE_SLURM_JWT_FILE");
    m_settings.partition = env("TUNEPLANE_SLURM_PARTITION");
    auto transport = CurlTransport::create(transport_options(m_settings));
    ASSERT_TRUE(transport.ok()) << transport.error().message();
    m_transport = std::move(transport).value();
    m_tokens = std::make_unique<FileTokenSource>(m_settings.rest_user, m_settings.jwt_file, m_clock);
    auto client = RestClient::create(*m_transport, *m_tokens, "v0.0.38");
    ASSERT_TRUE(client.ok());
    m_client = std::move(client).value();
  }

  model::SubmitDescription description(const std::string& name, const std::string& script,
                                       std::vector<model::SubmitComponent> components) {
    model::SubmitDescription job;
    job.tag = model::JobTag{"tp-realtest-" + name + "-1", "tuneplane:" + name, m_dir.path()};
    job.script = script;
    job.standard_output = m_dir.file(name + "-%j.out");
    job.environment = {{"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"LANG", "C"}};
    job.time_limit_minutes = 5;
    job.components = std::move(components);
    return job;
  }
  model::SubmitComponent gpu_component() {
    return {m_settings.partition,
            env("TUNEPLANE_LOCAL_SLURM_GPU_CONSTRAINT"),
            1,
            1,
            1,
            100,
            env("TUNEPLANE_LOCAL_SLURM_GRES") + ":1"};
  }
  model::SubmitComponent cpu_component() {
    return {m_settings.partition, env("TUNEPLANE_LOCAL_SLURM_CPU_CONSTRAINT"), 1, 1, 1, 100, ""};
  }

  // Polls the job (bounded) until every component is terminal; returns the last records.
  std::vector<model::JobSnapshot> wait_terminal(std::uint32_t job_id) {
    std::vector<model::JobSnapshot> jobs;
    for (int i = 0; i < 120; ++i) {
      const JobsResult result = m_client->get_job({job_id, ""});
      EXPECT_EQ(result.outcome, Outcome::ok) << result.message;
      jobs = result.jobs;
      bool done = !jobs.empty();
      for (const auto& job : jobs) done = done && job.state.is_terminal();
      if (done) return jobs;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    ADD_FAILURE() << "job " << job_id << " did not finish within 60 s";
    return jobs;
  }

  model::Settings m_settings;
  SystemClock m_clock;
  tpslurm::testing::TempDir m_dir;
  std::unique_ptr<CurlTransport> m_transport;
  std::unique_ptr<FileTokenSource> m_tokens;
  std::unique_ptr<RestClient> m_client;
};

TEST_F(RealSlurmTest, DetectsTheServerAndPassesTheAuthenticatedPreflight) {
  auto rest = RestClient::create(*m_transport, *m_tokens, "auto");
  const ServerResult server = (*rest)->detect();
  EXPECT_EQ(server.outcome, Outcome::ok) << server.message;
  EXPECT_EQ(server.offered, std::vector<std::string>{"v0.0.38"});
  EXPECT_EQ(server.release.rfind("22.05.", 0), 0u) << server.release;
  EXPECT_TRUE(server.policy.degraded());
  const CallResult preflight = (*rest)->preflight();
  EXPECT_EQ(preflight.outcome, Outcome::ok) << preflight.message;
}

TEST_F(RealSlurmTest, SubmitsASingleGpuJobThatRunsWithoutRequeue) {
  const SubmitResult submitted =
      m_client->submit(description("single", "#!/bin/bash\necho $CUDA_VISIBLE_DEVICES\n", {gpu_component()}));
  ASSERT_EQ(submitted.outcome, Outcome::ok) << submitted.message;
  ASSERT_TRUE(submitted.job_id);
  EXPECT_EQ(submitted.release.rfind("22.05.", 0), 0u);

  const JobsResult identified = m_client->get_job({*submitted.job_id, ""});
  ASSERT_EQ(identified.outcome, Outcome::ok) << identified.message;
  ASSERT_EQ(identified.jobs.size(), 1u);
  const auto& job = identified.jobs[0];
  EXPECT_EQ(job.tag(), (model::JobTag{"tp-realtest-single-1", "tuneplane:single", m_dir.path()}));
  EXPECT_FALSE(job.requeue);  // no_requeue honoured
  EXPECT_FALSE(job.het_job_id);

  const auto finished = wait_terminal(*submitted.job_id);
  ASSERT_EQ(finished.size(), 1u);
  EXPECT_EQ(finished[0].state.base, model::SlurmBaseState::completed);
  EXPECT_EQ(finished[0].exit_code, 0);
}

TEST_F(RealSlurmTest, SubmitsATwoComponentHetjobWithConstraints) {
  const SubmitResult submitted = m_client->submit(
      description("het", "#!/bin/bash\nsrun --het-group=0,1 true\n", {gpu_component(), cpu_component()}));
  ASSERT_EQ(submitted.outcome, Outcome::ok) << submitted.message;

  const JobsResult identified = m_client->get_job({*submitted.job_id, ""});
  ASSERT_EQ(identified.outcome, Outcome::ok) << identified.message;
  ASSERT_EQ(identified.jobs.size(), 2u);
  for (std::uint32_t k = 0; k < 2; ++k) {
    const auto& component = identified.jobs[k];
    EXPECT_EQ(component.het_job_id, *submitted.job_id);
    EXPECT_EQ(component.het_job_offset, k);
    EXPECT_EQ(component.name, "tp-realtest-het-1");
    EXPECT_EQ(component.comment, "tuneplane:het");
    EXPECT_EQ(component.working_directory, m_dir.path());
    EXPECT_FALSE(component.requeue) << "component " << k;
  }
  const auto finished = wait_terminal(*submitted.job_id);
  ASSERT_EQ(finished.size(), 2u);
  EXPECT_EQ(finished[0].nodes, "vm");
  EXPECT_EQ(finished[1].nodes, "vm-emu");
  for (const auto& component : finished) EXPECT_EQ(component.state.base, model::SlurmBaseState::completed);
}

TEST_F(RealSlurmTest, SubmitsACpuOnlyJobThatReportsItsExitCode) {
  const SubmitResult submitted = m_client->submit(description("cpu", "#!/bin/bash\nexit 3\n", {cpu_component()}));
  ASSERT_EQ(submitted.outcome, Outcome::ok) << submitted.message;
  const auto finished = wait_terminal(*submitted.job_id);
  ASSERT_EQ(finished.size(), 1u);
  EXPECT_EQ(finished[0].state.base, model::SlurmBaseState::failed);
  EXPECT_EQ(finished[0].exit_code, 3);
  EXPECT_EQ(finished[0].nodes, "vm-emu");
}

TEST_F(RealSlurmTest, BulkStateListsNewJobsAndThenNothingChanged) {
  const SubmitResult submitted = m_client->submit(description("bulk", "#!/bin/bash\nsleep 30\n", {cpu_component()}));
  ASSERT_EQ(submitted.outcome, Outcome::ok) << submitted.message;
  const JobsResult all = m_client->jobs_changed_since(std::nullopt);
  ASSERT_EQ(all.outcome, Outcome::ok) << all.message;
  bool listed = false;
  for (const auto& job : all.jobs) listed = listed || job.job_id == *submitted.job_id;
  EXPECT_TRUE(listed);
  const JobsResult later = m_client->jobs_changed_since(m_clock.now() + std::chrono::hours(1));
  EXPECT_EQ(later.outcome, Outcome::ok) << later.message;
  EXPECT_TRUE(later.unchanged);
  EXPECT_EQ(m_client->cancel({*submitted.job_id, ""}).outcome, Outcome::ok);
}

// bulk_state on 22.05: no jobs/state, so `jobs?update_time=` with a baseline read from the
// server's own clock (diag); 304 once nothing changed; a purged job is not reported.
TEST_F(RealSlurmTest, BulkStateReportsAskedJobsAndThenNothingChanged) {
  const SubmitResult submitted =
      m_client->submit(description("bulkstate", "#!/bin/bash\nsleep 60\n", {cpu_component()}));
  ASSERT_EQ(submitted.outcome, Outcome::ok) << submitted.message;
  const std::vector<std::uint32_t> ids{*submitted.job_id, 67000000};
  BulkStateResult polled = m_client->bulk_state(ids);
  ASSERT_EQ(polled.outcome, Outcome::ok) << polled.message;
  ASSERT_EQ(polled.states.size(), 1u);
  EXPECT_EQ(polled.states[0].job_id, *submitted.job_id);
  EXPECT_EQ(polled.records.at(0).name, "tp-realtest-bulkstate-1");
  EXPECT_EQ(polled.not_reported, std::vector<std::uint32_t>{67000000});
  ASSERT_TRUE(polled.next_since) << "22.05 serves diag: the next baseline is on its clock; " << polled.clock_note;
  // Other jobs may still be finishing; within a few seconds the cluster is quiet.
  bool unchanged = false;
  for (int i = 0; i < 20 && !unchanged; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    polled = m_client->bulk_state(ids, polled.next_since);
    ASSERT_EQ(polled.outcome, Outcome::ok) << polled.message;
    unchanged = polled.unchanged;
  }
  EXPECT_TRUE(unchanged) << "no 304 within 22 s";
  EXPECT_EQ(m_client->cancel({*submitted.job_id, ""}).outcome, Outcome::ok);
  const BulkStateResult after = m_client->bulk_state(ids, polled.next_since);
  EXPECT_FALSE(after.unchanged) << "the cancel is a change";
  ASSERT_EQ(after.states.size(), 1u);
}

TEST_F(RealSlurmTest, CancelsARunningJobAndKnowsUnknownOnes) {
  const SubmitResult submitted = m_client->submit(description("cancel", "#!/bin/bash\nsleep 300\n", {cpu_component()}));
  ASSERT_EQ(submitted.outcome, Outcome::ok) << submitted.message;
  const CancelResult cancelled = m_client->cancel({*submitted.job_id, ""});
  EXPECT_EQ(cancelled.outcome, Outcome::ok) << cancelled.message;
  const auto finished = wait_terminal(*submitted.job_id);
  ASSERT_EQ(finished.size(), 1u);
  EXPECT_EQ(finished[0].state.base, model::SlurmBaseState::cancelled);
  EXPECT_EQ(m_client->cancel({*submitted.job_id, ""}).outcome, Outcome::ok);

  const CancelResult unknown = m_client->cancel({67000000, ""});
  EXPECT_EQ(unknown.outcome, Outcome::not_found) << unknown.message;
  EXPECT_EQ(m_client->get_job({67000000, ""}).outcome, Outcome::not_found);
}

TEST_F(RealSlurmTest, AConstraintNoNodeHasIsRejected) {
  auto component = cpu_component();
  component.constraint = "a100";
  const SubmitResult submitted = m_client->submit(description("badconstraint", "#!/bin/bash\ntrue\n", {component}));
  EXPECT_EQ(submitted.outcome, Outcome::rejected);
  EXPECT_EQ(submitted.message, "POST /slurm/v0.0.38/job/submit: Invalid feature specification (error 2029)");
}

// 22.05 answers a bad token on submit with a 500 that a lost answer could also produce, so the
// submit stays `uncertain`; the authenticated preflight is what says `auth`.
TEST_F(RealSlurmTest, ABadTokenIsAuthInThePreflight) {
  tpslurm::testing::write_test_file(
      m_dir.file("bad.jwt"),
      "SLURM_JWT=" + mint_hs256("not the cluster key", m_settings.rest_user, m_clock.now(), std::chrono::seconds(600)) +
          "\n");
  FileTokenSource bad(m_settings.rest_user, m_dir.file("bad.jwt"), m_clock);
  auto rest = RestClient::create(*m_transport, bad, "v0.0.38");
  const CallResult preflight = (*rest)->preflight();
  EXPECT_EQ(preflight.outcome, Outcome::auth) << preflight.message;
  const SubmitResult submitted = (*rest)->submit(description("badtoken", "#!/bin/bash\ntrue\n", {cpu_component()}));
  EXPECT_FALSE(submitted.ok());
  EXPECT_NE(submitted.outcome, Outcome::rejected) << submitted.message;
}

TEST_F(RealSlurmTest, TokensMintedFromTheKeyAreAccepted) {
  MintingTokenSource minted(m_settings.rest_user, env("TUNEPLANE_LOCAL_SLURM_KEY_FILE"), std::chrono::seconds(600),
                            m_clock);
  auto rest = RestClient::create(*m_transport, minted, "v0.0.38");
  const CallResult preflight = (*rest)->preflight();
  EXPECT_EQ(preflight.outcome, Outcome::ok) << preflight.message;
}

// As deployed: the jobs' own unprivileged user and its token (a copy this process owns, as
// the service account owns its token file).
TEST_F(RealSlurmTest, DoctorPassesEveryCheckForTheJobUser) {
  ASSERT_FALSE(env("TUNEPLANE_LOCAL_SLURM_JOB_TOKEN_FILE").empty());
  model::Settings settings = m_settings;
  settings.rest_user = env("TUNEPLANE_LOCAL_SLURM_JOB_USER");
  settings.jwt_file = m_dir.file("jwt.token");
  tpslurm::testing::write_test_file(settings.jwt_file,
                                    tpslurm::testing::read_test_file(env("TUNEPLANE_LOCAL_SLURM_JOB_TOKEN_FILE")));
  const auto checks = run_doctor(settings, *m_transport, m_clock);
  EXPECT_TRUE(all_ok(checks)) << format_report(checks);
}

TEST_F(RealSlurmTest, DoctorFlagsARootToken) {
  const auto checks = run_doctor(m_settings, *m_transport, m_clock);
  ASSERT_EQ(m_settings.rest_user, "root");
  std::vector<std::string> failed;
  for (const auto& check : checks) {
    if (!check.ok) failed.push_back(check.name + ": " + check.detail);
  }
  EXPECT_EQ(failed, (std::vector<std::string>{"token user: the token is for root (uid 0), which Slurm lets act as any "
                                              "user"}))
      << format_report(checks);
}

}  // namespace
}  // namespace tpslurm::slurm
