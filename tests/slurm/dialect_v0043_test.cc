// The v0.0.43 codec against the 26.05.3 transcripts of that version (42-44 in
// tests/fixtures/slurm/samples-v0.0.45/): the same submit body as v0.0.45, records without
// any SLUID, so identity is job id + tag even on a 26.05 server.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "dialect_shapes.h"
#include "golden_support.h"
#include "slurm/dialect.h"
#include "slurm/server_info.h"
#include "test_support.h"

namespace tpslurm::slurm {
namespace {

using model::SlurmBaseState;

class DialectV0043Test : public ::testing::Test {
 protected:
  std::unique_ptr<Dialect> m_dialect = make_dialect("v0.0.43");
};

TEST_F(DialectV0043Test, EncodesAHeterogeneousJobAsTheGoldenBody) {
  auto body = m_dialect->encode_submit(testing::hetjob_description());
  ASSERT_TRUE(body.ok()) << body.error().message();
  testing::expect_golden_json(*body, "v0.0.43_submit_hetjob.json");
}

TEST_F(DialectV0043Test, EncodesACpuOnlyJobAsTheGoldenBody) {
  auto body = m_dialect->encode_submit(testing::cpu_description());
  ASSERT_TRUE(body.ok()) << body.error().message();
  testing::expect_golden_json(*body, "v0.0.43_submit_cpu.json");
}

TEST_F(DialectV0043Test, AHeldHeterogeneousJobIsHeldOnEveryComponent) {
  auto description = testing::hetjob_description();
  description.hold = true;
  auto body = m_dialect->encode_submit(description);
  ASSERT_TRUE(body.ok()) << body.error().message();
  testing::expect_golden_json(*body, "v0.0.43_submit_hetjob_held.json");
  const auto parsed = boost::json::parse(*body);
  for (const auto& job : parsed.at("jobs").as_array()) EXPECT_EQ(job.at("hold"), boost::json::value(true));
  const auto unheld = boost::json::parse(*m_dialect->encode_submit(testing::hetjob_description()));
  for (const auto& job : unheld.at("jobs").as_array()) EXPECT_FALSE(job.as_object().contains("hold"));
}

TEST_F(DialectV0043Test, WritesEveryFieldTheRealRequestHadInTheSameShape) {
  testing::expect_same_shape_as_transcript(*m_dialect, "42_submit_single_v0.0.43");
}

TEST_F(DialectV0043Test, DecodesThePingOfThatVersion) {
  const auto ping = m_dialect->decode_ping(testing::response_v0045("03_ping_v0.0.43"));
  ASSERT_TRUE(ping.ok());
  EXPECT_TRUE(ping->responding);
  EXPECT_EQ(ping->status, "UP") << "v0.0.43/44 ping entries say \"pinged\", not \"status\"";
  EXPECT_EQ(ping->release, "26.05.3");
  EXPECT_EQ(m_dialect->ping_path(), "/slurm/v0.0.43/ping");
}

TEST_F(DialectV0043Test, DecodesTheSubmitReceipt) {
  auto reply = m_dialect->decode_submit(testing::response_v0045("42_submit_single_v0.0.43"));
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->job_id, 17u);
  EXPECT_EQ(reply->release, "26.05.3");
}

TEST_F(DialectV0043Test, DecodesAJobThatHasNoSluid) {
  auto reply = m_dialect->decode_jobs(testing::response_v0045("43_get_job_v0.0.43"));
  ASSERT_TRUE(reply.ok());
  ASSERT_EQ(reply->jobs.size(), 1u);
  const model::JobSnapshot& job = reply->jobs[0];
  EXPECT_EQ(job.job_id, 17u);
  EXPECT_EQ(job.sluid, "");
  EXPECT_EQ(job.name, "sample-single");
  EXPECT_EQ(job.comment, "submitted via slurmrestd v0.0.45");
  EXPECT_EQ(job.working_directory, "/tmp/slurm26/jobs");
  EXPECT_EQ(job.state.base, SlurmBaseState::pending);
  EXPECT_FALSE(job.requeue);
  EXPECT_EQ(job.submit_time, from_unix_seconds(1796040419));
}

// A v0.0.43 decoder never reads a SLUID, even from a record that has one: identity must not
// silently depend on which fields a newer server happens to add.
TEST_F(DialectV0043Test, IgnoresASluidInARecord) {
  auto reply = m_dialect->decode_jobs(testing::response_v0045("40_get_job_v0.0.44"));
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->jobs.at(0).sluid, "");
}

TEST_F(DialectV0043Test, DecodesTheCancel) {
  auto reply = m_dialect->decode_cancel(testing::response_v0045("44_delete_job_v0.0.43"));
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->status, CancelStatus::signalled);
}

TEST_F(DialectV0043Test, DegradesIdentityToJobIdAndTagEvenOnA2605Server) {
  const IdPolicy policy = id_policy(*SlurmRelease::parse("26.05.3"), "v0.0.43");
  EXPECT_FALSE(policy.records_have_sluid);
  EXPECT_FALSE(policy.sluid_in_paths);
  EXPECT_EQ(policy.refresh, RefreshBy::job_id_check_tag);
  EXPECT_EQ(policy.cancel, CancelBy::job_id_after_tag_check);
  EXPECT_TRUE(policy.degraded());
}

}  // namespace
}  // namespace tpslurm::slurm
