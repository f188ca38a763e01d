// Against a real Slurm 22.05 with accounting (slurmdbd + MariaDB) and a short MinJobAge, as
// `tools/local-slurm up --accounting --min-job-age 2` starts it beside the main test cluster
// (tools/test exports its `env`): find_jobs_by_tag after slurmctld purged the job, so only
// slurmdbd can answer. Without that environment every test fails: it never skips.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <thread>

#include "slurm/curl_transport.h"
#include "slurm/jwt_source.h"
#include "slurm/rest_client.h"
#include "support/temp_dir.h"

namespace tpslurm::slurm {
namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

class RealSlurmAccountingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"TUNEPLANE_SLURM_REST_URL", "TUNEPLANE_SLURM_REST_USER", "TUNEPLANE_SLURM_JWT_FILE",
                             "TUNEPLANE_SLURM_PARTITION", "TUNEPLANE_LOCAL_SLURM_CPU_CONSTRAINT",
                             "TUNEPLANE_LOCAL_SLURM_GPU_CONSTRAINT"}) {
      ASSERT_FALSE(env(name).empty()) << "the local Slurm with accounting is not up: " << name
                                      << " is not set; run tools/local-slurm up --accounting --min-job-age 2 "
                                         "(on other ports and state dir) and export its env";
    }
    ASSERT_EQ(env("TUNEPLANE_LOCAL_SLURM_ACCOUNTING"), "1")
        << "this cluster has no accounting: start it with tools/local-slurm up --accounting";
    m_settings.rest_url = env("TUNEPLANE_SLURM_REST_URL");
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

  // A name no earlier run used: slurmdbd keeps every job ever run on this cluster.
  std::string unique_name(const std::string& what) {
    return "tp-acct-" + what + "-" + std::to_string(::getpid()) + "-" +
           std::to_string(unix_seconds(m_clock.now()) % 100000);
  }

  model::SubmitDescription description(const std::string& name, const std::string& script, int components = 1) {
    model::SubmitDescription job;
    job.tag = model::JobTag{name, "tuneplane:" + name, m_dir.path()};
    job.script = script;
    job.standard_output = m_dir.file(name + "-%j.out");
    job.environment = {{"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"LANG", "C"}};
    job.time_limit_minutes = 5;
    job.components.push_back({m_settings.partition, env("TUNEPLANE_LOCAL_SLURM_GPU_CONSTRAINT"), 1, 1, 1, 100, ""});
    if (components == 2) {
      job.components.push_back({m_settings.partition, env("TUNEPLANE_LOCAL_SLURM_CPU_CONSTRAINT"), 1, 1, 1, 100, ""});
    }
    return job;
  }

  // Waits (bounded) until slurmctld no longer knows the job: MinJobAge has passed.
  void wait_purged(std::uint32_t job_id) {
    for (int i = 0; i < 120; ++i) {
      const JobsResult result = m_client->get_job({job_id, ""});
      if (result.outcome == Outcome::not_found) return;
      ASSERT_EQ(result.outcome, Outcome::ok) << result.message;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    FAIL() << "job " << job_id << " was not purged from slurmctld within 60 s; is MinJobAge 2?";
  }

  model::Settings m_settings;
  SystemClock m_clock;
  tpslurm::testing::TempDir m_dir;
  std::unique_ptr<CurlTransport> m_transport;
  std::unique_ptr<FileTokenSource> m_tokens;
  std::unique_ptr<RestClient> m_client;
};

TEST_F(RealSlurmAccountingTest, FindsAPurgedJobInSlurmdbdOnly) {
  const std::string name = unique_name("single");
  const TimePoint intent = m_clock.now();
  const SubmitResult submitted = m_client->submit(description(name, "#!/bin/bash\ntrue\n"));
  ASSERT_EQ(submitted.outcome, Outcome::ok) << submitted.message;
  wait_purged(*submitted.job_id);

  const SearchResult found = m_client->find_jobs_by_tag(description(name, "").tag, intent);
  EXPECT_EQ(found.outcome, Outcome::ok) << found.message;
  EXPECT_TRUE(found.complete());
  EXPECT_TRUE(found.window_on_server_clock) << "22.05 serves diag: the window is on its clock";
  ASSERT_EQ(found.sources.size(), 2u);
  EXPECT_EQ(found.sources[0].outcome, Outcome::ok);
  EXPECT_EQ(found.sources[1].outcome, Outcome::ok) << found.sources[1].message;
  ASSERT_EQ(found.matches.size(), 1u);
  const SearchMatch& match = found.matches[0];
  EXPECT_EQ(match.source, SearchSource::slurmdbd);
  EXPECT_EQ(match.job.job_id, *submitted.job_id);
  EXPECT_EQ(match.job.name, name);
  EXPECT_EQ(match.job.working_directory, m_dir.path());
  EXPECT_GE(match.marks, 2);
  EXPECT_EQ(match.job.state.base, model::SlurmBaseState::completed);
}

TEST_F(RealSlurmAccountingTest, FindsBothComponentsOfAPurgedHetjob) {
  const std::string name = unique_name("het");
  const TimePoint intent = m_clock.now();
  const SubmitResult submitted = m_client->submit(description(name, "#!/bin/bash\nsrun --het-group=0,1 true\n", 2));
  ASSERT_EQ(submitted.outcome, Outcome::ok) << submitted.message;
  wait_purged(*submitted.job_id);

  const SearchResult found = m_client->find_jobs_by_tag(description(name, "").tag, intent);
  EXPECT_TRUE(found.complete()) << found.message;
  ASSERT_EQ(found.matches.size(), 2u);
  for (std::uint32_t k = 0; k < 2; ++k) {
    EXPECT_EQ(found.matches[k].source, SearchSource::slurmdbd);
    EXPECT_EQ(found.matches[k].job.het_job_id, *submitted.job_id);
    EXPECT_EQ(found.matches[k].job.het_job_offset, k);
  }
}

TEST_F(RealSlurmAccountingTest, FindsALiveJobOnceThoughBothSourcesKnowIt) {
  const std::string name = unique_name("live");
  const TimePoint intent = m_clock.now();
  const SubmitResult submitted = m_client->submit(description(name, "#!/bin/bash\nsleep 60\n"));
  ASSERT_EQ(submitted.outcome, Outcome::ok) << submitted.message;
  const SearchResult found = m_client->find_jobs_by_tag(description(name, "").tag, intent);
  EXPECT_TRUE(found.complete()) << found.message;
  ASSERT_EQ(found.matches.size(), 1u);
  EXPECT_EQ(found.matches[0].source, SearchSource::slurmctld);
  EXPECT_EQ(found.matches[0].marks, 3);
  EXPECT_EQ(m_client->cancel({*submitted.job_id, ""}).outcome, Outcome::ok);
}

TEST_F(RealSlurmAccountingTest, ATagNobodySubmittedIsACompleteEmptyAnswer) {
  const SearchResult found = m_client->find_jobs_by_tag(description(unique_name("never"), "").tag, m_clock.now());
  EXPECT_EQ(found.outcome, Outcome::ok) << found.message;
  EXPECT_TRUE(found.complete());
  EXPECT_TRUE(found.matches.empty());
  EXPECT_EQ(found.sources.at(1).records, 0);
}

// A window that starts after the job ended does not find it: the window is really applied,
// on the server's clock.
TEST_F(RealSlurmAccountingTest, AJobThatEndedBeforeTheWindowIsNotFound) {
  const std::string name = unique_name("old");
  const SubmitResult submitted = m_client->submit(description(name, "#!/bin/bash\ntrue\n"));
  ASSERT_EQ(submitted.outcome, Outcome::ok) << submitted.message;
  wait_purged(*submitted.job_id);
  const SearchResult later = m_client->find_jobs_by_tag(description(name, "").tag, m_clock.now() + std::chrono::hours(25));
  EXPECT_TRUE(later.complete()) << later.message;
  EXPECT_TRUE(later.matches.empty());
  const SearchResult earlier = m_client->find_jobs_by_tag(description(name, "").tag, m_clock.now());
  EXPECT_EQ(earlier.matches.size(), 1u) << earlier.message;
}

}  // namespace
}  // namespace tpslurm::slurm
