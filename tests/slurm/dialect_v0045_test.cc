// The v0.0.45 codec: encoding against golden JSON, decoding every v0.0.45 answer recorded from
// a real Slurm 26.05.3 (tests/fixtures/slurm/samples-v0.0.45/).
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <sstream>

#include "dialect_shapes.h"
#include "golden_support.h"
#include "slurm/dialect.h"
#include "test_support.h"

namespace tpslurm::slurm {
namespace {

using model::SlurmBaseState;
using model::SlurmStateFlag;

class DialectV0045Test : public ::testing::Test {
 protected:
  std::unique_ptr<Dialect> m_dialect = make_dialect("v0.0.45");
};

// Found by tools/fuzz slurm_submit: 1e57 was converted to an integer (undefined behaviour),
// and numbers past int's range wrapped onto other codes (2^32 + 2017 read as 2017).
TEST_F(DialectV0045Test, AnErrorNumberNoIntHoldsIsNoNumber) {
  const auto base = m_dialect->decode_base(R"({"errors": [{"error_code": 1.1e57}, {"error_code": 4294969313},
    {"error_number": 18446744073709551615}, {"error_code": -1e300}, {"error_code": 2017}]})");
  ASSERT_TRUE(base.ok()) << base.error().message();
  ASSERT_EQ(base->errors.size(), 5U);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(base->errors[i].number, 0) << i;
  EXPECT_EQ(base->errors[4].number, 2017);
}

TEST_F(DialectV0045Test, EncodesAHeterogeneousJobAsTheGoldenBody) {
  auto body = m_dialect->encode_submit(testing::hetjob_description());
  ASSERT_TRUE(body.ok()) << body.error().message();
  testing::expect_golden_json(*body, "v0.0.45_submit_hetjob.json");
}

TEST_F(DialectV0045Test, EncodesACpuOnlyJobAsTheGoldenBody) {
  auto body = m_dialect->encode_submit(testing::cpu_description());
  ASSERT_TRUE(body.ok()) << body.error().message();
  testing::expect_golden_json(*body, "v0.0.45_submit_cpu.json");
}

TEST_F(DialectV0045Test, AHeldHeterogeneousJobIsHeldOnEveryComponent) {
  auto description = testing::hetjob_description();
  description.hold = true;
  auto body = m_dialect->encode_submit(description);
  ASSERT_TRUE(body.ok()) << body.error().message();
  testing::expect_golden_json(*body, "v0.0.45_submit_hetjob_held.json");
  const auto parsed = boost::json::parse(*body);
  for (const auto& job : parsed.at("jobs").as_array()) EXPECT_EQ(job.at("hold"), boost::json::value(true));
  const auto unheld = boost::json::parse(*m_dialect->encode_submit(testing::hetjob_description()));
  for (const auto& job : unheld.at("jobs").as_array()) EXPECT_FALSE(job.as_object().contains("hold"));
}

TEST_F(DialectV0045Test, WritesEveryFieldTheRealRequestHadInTheSameShape) {
  testing::expect_same_shape_as_transcript(*m_dialect, "04_submit_single");
}

TEST_F(DialectV0045Test, EveryComponentCarriesTheTagEnvironmentAndNoRequeue) {
  const auto description = testing::hetjob_description();
  const auto body = boost::json::parse(*m_dialect->encode_submit(description));
  const auto& jobs = body.at("jobs").as_array();
  ASSERT_EQ(jobs.size(), 2u);
  for (const auto& job : jobs) {
    EXPECT_EQ(job.at("requeue"), boost::json::value(false));
    EXPECT_EQ(job.at("name"), boost::json::value(description.tag.name));
    EXPECT_EQ(job.at("comment"), boost::json::value(description.tag.comment));
    EXPECT_EQ(job.at("current_working_directory"), boost::json::value(description.tag.working_directory));
    EXPECT_EQ(job.at("environment"), boost::json::value(boost::json::array{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8"}));
    EXPECT_EQ(job.at("time_limit"), boost::json::value(boost::json::object{{"set", true}, {"infinite", false}, {"number", 120}}));
  }
  EXPECT_EQ(jobs[0].at("script"), boost::json::value(description.script));
  EXPECT_FALSE(jobs[1].as_object().contains("script"));
  EXPECT_EQ(jobs[0].at("tres_per_node"), boost::json::value("gres/gpu:8"));
  EXPECT_EQ(jobs[1].at("tres_per_node"), boost::json::value("gres/gpu:a100:4"));
}

TEST_F(DialectV0045Test, RefusesADescriptionSlurmWouldRefuse) {
  auto description = testing::cpu_description();
  description.environment.clear();
  EXPECT_EQ(m_dialect->encode_submit(description).error().message(),
            "submit description: the REST environment is empty; Slurm refuses a job without one (PATH at least)");
  description = testing::cpu_description();
  description.components.clear();
  EXPECT_EQ(m_dialect->encode_submit(description).error().message(),
            "submit description: no component; a job needs at least one");
  description = testing::cpu_description();
  description.components[0].nodes = 0;
  EXPECT_EQ(m_dialect->encode_submit(description).error().message(),
            "submit description: components[0].nodes 0 must be at least 1");
}

TEST_F(DialectV0045Test, BuildsPathsWithEscapedHetComponentIds) {
  EXPECT_EQ(m_dialect->submit_path(), "/slurm/v0.0.45/job/submit");
  EXPECT_EQ(m_dialect->job_path("14+1"), "/slurm/v0.0.45/job/14%2B1");
  EXPECT_EQ(m_dialect->job_path("sEE9M8P5JF1X00"), "/slurm/v0.0.45/job/sEE9M8P5JF1X00");
  EXPECT_EQ(m_dialect->cancel_path("12", "SIGUSR1"), "/slurm/v0.0.45/job/12?signal=SIGUSR1");
  EXPECT_EQ(m_dialect->jobs_path(1796040374), "/slurm/v0.0.45/jobs?update_time=1796040374");
}

TEST_F(DialectV0045Test, DecodesTheSubmitReceipt) {
  auto reply = m_dialect->decode_submit(testing::response_v0045("04_submit_single"));
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->job_id, 12u);
  EXPECT_EQ(reply->release, "26.05.3");
  EXPECT_TRUE(reply->errors.empty());
  EXPECT_EQ(m_dialect->decode_submit(testing::response_v0045("13_submit_hetjob"))->job_id, 14u);
}

TEST_F(DialectV0045Test, DecodesARunningJobWithItsSluid) {
  auto reply = m_dialect->decode_jobs(testing::response_v0045("05_get_job_by_id"));
  ASSERT_TRUE(reply.ok());
  ASSERT_EQ(reply->jobs.size(), 1u);
  const model::JobSnapshot& job = reply->jobs[0];
  EXPECT_EQ(job.job_id, 12u);
  EXPECT_EQ(job.sluid, "sEE9M8P5JF1X00");
  EXPECT_FALSE(job.het_job_id);
  EXPECT_EQ(job.name, "sample-single");
  EXPECT_EQ(job.comment, "submitted via slurmrestd v0.0.45");
  EXPECT_EQ(job.working_directory, "/tmp/slurm26/jobs");
  EXPECT_EQ(job.partition, "gpu");
  EXPECT_EQ(job.nodes, "vm");
  EXPECT_EQ(job.state.base, SlurmBaseState::running);
  EXPECT_EQ(job.state.flags, 0u);
  EXPECT_FALSE(job.exit_code);
  EXPECT_FALSE(job.requeue);
  EXPECT_EQ(job.restart_count, 0);
  EXPECT_EQ(job.submit_time, from_unix_seconds(1796040375));
  EXPECT_EQ(job.start_time, from_unix_seconds(1796040375));
  EXPECT_EQ(job.standard_output, "/tmp/slurm26/jobs/sample-single-12.out");
  EXPECT_EQ(reply->release, "26.05.3");
}

TEST_F(DialectV0045Test, DecodesCancelledAndFailedJobsExitInformation) {
  const auto cancelled = m_dialect->decode_jobs(testing::response_v0045("09_get_job_after_cancel"))->jobs.at(0);
  EXPECT_EQ(cancelled.state.base, SlurmBaseState::cancelled);
  EXPECT_EQ(cancelled.exit_signal, 15);
  EXPECT_FALSE(cancelled.exit_code);

  const auto failed = m_dialect->decode_jobs(testing::response_v0045("12_get_job_exit3_finished"))->jobs.at(0);
  EXPECT_EQ(failed.state.base, SlurmBaseState::failed);
  EXPECT_EQ(failed.exit_code, 3);
  EXPECT_FALSE(failed.exit_signal);
  EXPECT_EQ(failed.state_reason, "NonZeroExitCode");
}

TEST_F(DialectV0045Test, DecodesEveryComponentOfAHeterogeneousJob) {
  const auto reply = m_dialect->decode_jobs(testing::fixture("samples-v0.0.45/two_node/02_get_hetjob_leader.response.json"));
  ASSERT_TRUE(reply.ok());
  ASSERT_EQ(reply->jobs.size(), 2u);
  EXPECT_EQ(reply->jobs[0].job_id, 7u);
  EXPECT_EQ(reply->jobs[0].het_job_id, 7u);
  EXPECT_EQ(reply->jobs[0].het_job_offset, 0u);
  EXPECT_EQ(reply->jobs[0].sluid, "sEE9M8P5G7GG00");
  EXPECT_EQ(reply->jobs[1].job_id, 8u);
  EXPECT_EQ(reply->jobs[1].het_job_id, 7u);
  EXPECT_EQ(reply->jobs[1].het_job_offset, 1u);
  EXPECT_EQ(reply->jobs[1].sluid, "sEE9M8P5G7GG01");
  EXPECT_EQ(reply->jobs[1].nodes, "vm-b");
  EXPECT_EQ(reply->jobs[1].state.base, SlurmBaseState::running);
}

TEST_F(DialectV0045Test, DecodesAnUnknownJobAnswerWithItsError) {
  const auto reply = m_dialect->decode_jobs(testing::response_v0045("25_get_unknown_job_id"));
  ASSERT_TRUE(reply.ok());
  EXPECT_TRUE(reply->jobs.empty());
  ASSERT_EQ(reply->errors.size(), 1u);
  EXPECT_EQ(reply->errors[0].number, 2017);
  EXPECT_EQ(reply->errors[0].text(), "Invalid job id specified (Unable to query JobId=999999) (error 2017)");
}

TEST_F(DialectV0045Test, RecognisesAnUnchangedUpdateTimeAnswer) {
  const auto unchanged = m_dialect->decode_jobs(testing::response_v0045("18_jobs_update_time_now"));
  EXPECT_TRUE(m_dialect->unchanged(200, &*unchanged));
  const auto changed = m_dialect->decode_jobs(testing::response_v0045("17_jobs_update_time"));
  EXPECT_FALSE(changed->jobs.empty());
  EXPECT_FALSE(m_dialect->unchanged(200, &*changed));
}

TEST_F(DialectV0045Test, DecodesEveryDeleteAnswer) {
  EXPECT_EQ(m_dialect->decode_cancel(testing::response_v0045("08_delete_job_by_sluid"))->status, CancelStatus::signalled);
  EXPECT_EQ(m_dialect->decode_cancel(testing::response_v0045("21_delete_hetjob_leader"))->status, CancelStatus::signalled);
  const auto done = m_dialect->decode_cancel(testing::response_v0045("10_delete_job_again_after_cancel"));
  EXPECT_EQ(done->status, CancelStatus::already_done);
  EXPECT_EQ(done->refusals.at(0).text(), "Job/step already completing or completed (error 2021)");
  EXPECT_EQ(m_dialect->decode_cancel(testing::response_v0045("23_delete_unknown_job_id"))->status, CancelStatus::not_found);
  EXPECT_EQ(m_dialect->decode_cancel(testing::response_v0045("24_delete_unknown_sluid"))->status, CancelStatus::not_found);
  const auto refused = m_dialect->decode_cancel(
      R"J({"status":[{"error":{"string":"Access/permission denied","code":2002,"message":"Access/permission denied"},"step_id":"12"}],"errors":[],"warnings":[]})J");
  EXPECT_EQ(refused->status, CancelStatus::refused);
}

TEST_F(DialectV0045Test, PingSaysWhetherSlurmctldRespondedToThisToken) {
  const auto good = m_dialect->decode_ping(testing::response_v0045("01_ping_v0.0.45"));
  EXPECT_TRUE(good->responding);
  EXPECT_EQ(good->status, "No error");
  const auto expired = m_dialect->decode_ping(testing::response_v0045("31_auth_expired_token_ping"));
  EXPECT_FALSE(expired->responding);
  EXPECT_EQ(expired->status, "Protocol authentication error");
}

// Every v0.0.45 answer of the 26.05.3 transcripts decodes with the decoder its request calls
// for, and reports the release; only the two text/plain answers are not JSON.
TEST_F(DialectV0045Test, DecodesEveryRecordedAnswer) {
  for (const std::string folder : {"", "two_node/"}) {
    std::istringstream index(testing::fixture("samples-v0.0.45/" + folder + "INDEX.tsv"));
    std::string line;
    std::getline(index, line);
    int decoded = 0;
    while (std::getline(index, line)) {
      std::istringstream fields(line);
      std::string sample, method, url, status;
      fields >> sample >> method >> url >> status;
      if (url.find("/v0.0.45/") == std::string::npos) continue;
      const std::string body = testing::fixture("samples-v0.0.45/" + folder + sample + ".response.json");
      if (sample.find("multi_csv") != std::string::npos || sample.find("no_token_headers") != std::string::npos) {
        EXPECT_FALSE(m_dialect->decode_base(body).ok()) << sample;
        continue;
      }
      Result<ReplyBase> base = m_dialect->decode_base(body);
      ASSERT_TRUE(base.ok()) << sample;
      EXPECT_EQ(base->release, "26.05.3") << sample;
      const bool ok_status = status == "200";
      if (url.find("/ping") != std::string::npos) {
        EXPECT_TRUE(m_dialect->decode_ping(body).ok()) << sample;
      } else if (method == "POST") {
        EXPECT_EQ(m_dialect->decode_submit(body)->job_id.has_value(), ok_status) << sample;
      } else if (method == "DELETE") {
        if (ok_status) {
          EXPECT_TRUE(m_dialect->decode_cancel(body).ok()) << sample;
        }
      } else if (url.find("/jobs/state") == std::string::npos && status != "422") {
        EXPECT_TRUE(m_dialect->decode_jobs(body).ok()) << sample;
      }
      ++decoded;
    }
    EXPECT_GT(decoded, 5) << folder;
  }
}

}  // namespace
}  // namespace tpslurm::slurm
