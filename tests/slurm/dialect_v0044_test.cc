// The v0.0.44 codec against the 26.05.3 transcripts of that version (39-41 in
// tests/fixtures/slurm/samples-v0.0.45/): the submit body matches the real request's shape,
// records carry SLUIDs, cancels read status[].
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

class DialectV0044Test : public ::testing::Test {
 protected:
  std::unique_ptr<Dialect> m_dialect = make_dialect("v0.0.44");
};

TEST_F(DialectV0044Test, EncodesAHeterogeneousJobAsTheGoldenBody) {
  auto body = m_dialect->encode_submit(testing::hetjob_description());
  ASSERT_TRUE(body.ok()) << body.error().message();
  testing::expect_golden_json(*body, "v0.0.44_submit_hetjob.json");
}

TEST_F(DialectV0044Test, EncodesACpuOnlyJobAsTheGoldenBody) {
  auto body = m_dialect->encode_submit(testing::cpu_description());
  ASSERT_TRUE(body.ok()) << body.error().message();
  testing::expect_golden_json(*body, "v0.0.44_submit_cpu.json");
}

TEST_F(DialectV0044Test, AHeldHeterogeneousJobIsHeldOnEveryComponent) {
  auto description = testing::hetjob_description();
  description.hold = true;
  auto body = m_dialect->encode_submit(description);
  ASSERT_TRUE(body.ok()) << body.error().message();
  testing::expect_golden_json(*body, "v0.0.44_submit_hetjob_held.json");
  const auto parsed = boost::json::parse(*body);
  for (const auto& job : parsed.at("jobs").as_array()) EXPECT_EQ(job.at("hold"), boost::json::value(true));
  const auto unheld = boost::json::parse(*m_dialect->encode_submit(testing::hetjob_description()));
  for (const auto& job : unheld.at("jobs").as_array()) EXPECT_FALSE(job.as_object().contains("hold"));
}

TEST_F(DialectV0044Test, WritesEveryFieldTheRealRequestHadInTheSameShape) {
  testing::expect_same_shape_as_transcript(*m_dialect, "39_submit_single_v0.0.44");
}

TEST_F(DialectV0044Test, BuildsItsOwnPaths) {
  EXPECT_EQ(m_dialect->submit_path(), "/slurm/v0.0.44/job/submit");
  EXPECT_EQ(m_dialect->job_path("16"), "/slurm/v0.0.44/job/16");
  EXPECT_EQ(m_dialect->cancel_path("16", ""), "/slurm/v0.0.44/job/16");
  EXPECT_EQ(m_dialect->preflight_path(), "/slurm/v0.0.44/jobs/state?job_id=1");
  EXPECT_EQ(m_dialect->db_jobs_path("tp-a-b-1", 1796000000),
            "/slurmdb/v0.0.44/jobs?job_name=tp-a-b-1&start_time=1796000000");
}

TEST_F(DialectV0044Test, DecodesThePingOfThatVersion) {
  const auto ping = m_dialect->decode_ping(testing::response_v0045("02_ping_v0.0.44"));
  ASSERT_TRUE(ping.ok());
  EXPECT_TRUE(ping->responding);
  EXPECT_EQ(ping->status, "UP") << "v0.0.43/44 ping entries say \"pinged\", not \"status\"";
  EXPECT_EQ(ping->release, "26.05.3");
  EXPECT_EQ(m_dialect->ping_path(), "/slurm/v0.0.44/ping");
}

TEST_F(DialectV0044Test, DecodesTheSubmitReceipt) {
  auto reply = m_dialect->decode_submit(testing::response_v0045("39_submit_single_v0.0.44"));
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->job_id, 16u);
  EXPECT_EQ(reply->release, "26.05.3");
  EXPECT_TRUE(reply->errors.empty());
}

TEST_F(DialectV0044Test, DecodesAPendingJobWithItsSluid) {
  auto reply = m_dialect->decode_jobs(testing::response_v0045("40_get_job_v0.0.44"));
  ASSERT_TRUE(reply.ok());
  ASSERT_EQ(reply->jobs.size(), 1u);
  const model::JobSnapshot& job = reply->jobs[0];
  EXPECT_EQ(job.job_id, 16u);
  EXPECT_EQ(job.sluid, "sEE9M8P5KTGY00");
  EXPECT_FALSE(job.het_job_id);
  EXPECT_EQ(job.name, "sample-single");
  EXPECT_EQ(job.comment, "submitted via slurmrestd v0.0.45");
  EXPECT_EQ(job.working_directory, "/tmp/slurm26/jobs");
  EXPECT_EQ(job.partition, "gpu");
  EXPECT_EQ(job.state.base, SlurmBaseState::pending);
  EXPECT_EQ(job.state_reason, "None");
  EXPECT_FALSE(job.exit_code);
  EXPECT_FALSE(job.requeue);
  EXPECT_EQ(job.submit_time, from_unix_seconds(1796040419));
  EXPECT_FALSE(job.start_time);
  EXPECT_EQ(job.standard_output, "/tmp/slurm26/jobs/sample-single-16.out");
}

TEST_F(DialectV0044Test, DecodesTheCancel) {
  auto reply = m_dialect->decode_cancel(testing::response_v0045("41_delete_job_v0.0.44"));
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->status, CancelStatus::signalled);
  EXPECT_TRUE(reply->refusals.empty());
}

// v0.0.44 records carry SLUIDs, but only a 26.05 server takes them in paths.
TEST_F(DialectV0044Test, RecordsSluidsButUsesJobIdsOnA2511Server) {
  const IdPolicy on_2511 = id_policy(*SlurmRelease::parse("25.11.7"), "v0.0.44");
  EXPECT_TRUE(on_2511.records_have_sluid);
  EXPECT_FALSE(on_2511.sluid_in_paths);
  EXPECT_EQ(on_2511.refresh, RefreshBy::job_id_check_sluid);
  EXPECT_EQ(on_2511.cancel, CancelBy::job_id_after_sluid_check);
  const IdPolicy on_2605 = id_policy(*SlurmRelease::parse("26.05.3"), "v0.0.44");
  EXPECT_TRUE(on_2605.sluid_in_paths);
}

}  // namespace
}  // namespace tpslurm::slurm
