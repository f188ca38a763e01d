// The v0.0.38 codec: encoding against golden JSON and against the OpenAPI document a real
// 22.05.8 slurmrestd serves, decoding every answer of the 22.05.8 transcripts
// (tests/fixtures/slurm/samples-v0.0.38/).
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <dirent.h>

#include <set>

#include "golden_support.h"
#include "slurm/dialect.h"
#include "test_support.h"

namespace tpslurm::slurm {
namespace {

using model::SlurmBaseState;

class DialectV0038Test : public ::testing::Test {
 protected:
  std::unique_ptr<Dialect> m_dialect = make_dialect("v0.0.38");
};

TEST_F(DialectV0038Test, EncodesAHeterogeneousJobAsTheGoldenBody) {
  auto body = m_dialect->encode_submit(testing::hetjob_description());
  ASSERT_TRUE(body.ok()) << body.error().message();
  testing::expect_golden_json(*body, "v0.0.38_submit_hetjob.json");
}

TEST_F(DialectV0038Test, EncodesACpuOnlyJobAsTheGoldenBody) {
  auto body = m_dialect->encode_submit(testing::cpu_description());
  ASSERT_TRUE(body.ok()) << body.error().message();
  testing::expect_golden_json(*body, "v0.0.38_submit_cpu.json");
}

TEST_F(DialectV0038Test, AHeldHeterogeneousJobIsHeldOnEveryComponent) {
  auto description = testing::hetjob_description();
  description.hold = true;
  auto body = m_dialect->encode_submit(description);
  ASSERT_TRUE(body.ok()) << body.error().message();
  testing::expect_golden_json(*body, "v0.0.38_submit_hetjob_held.json");
  const auto parsed = boost::json::parse(*body);
  for (const auto& job : parsed.at("jobs").as_array()) EXPECT_EQ(job.at("hold"), boost::json::value(true));
  const auto unheld = boost::json::parse(*m_dialect->encode_submit(testing::hetjob_description()));
  for (const auto& job : unheld.at("jobs").as_array()) EXPECT_FALSE(job.as_object().contains("hold"));
}

// The real 22.05.8 took `"hold": true` in the job (transcript submit_hold) and held the job.
TEST_F(DialectV0038Test, WritesHoldAsTheReal2205RequestDid) {
  const auto transcript = testing::transcript_v0038("submit_hold");
  const auto recorded = boost::json::parse(transcript.request_body);
  auto description = testing::cpu_description();
  description.hold = true;
  const auto body = boost::json::parse(*m_dialect->encode_submit(description));
  EXPECT_EQ(body.at("job").at("hold"), recorded.at("job").at("hold"));
}

TEST_F(DialectV0038Test, EveryComponentDisablesRequeueTheWay2205HonoursAndHasAnEnvironment) {
  const auto body = boost::json::parse(*m_dialect->encode_submit(testing::hetjob_description()));
  EXPECT_EQ(body.at("script"), boost::json::value(testing::hetjob_description().script));
  for (const auto& job : body.at("jobs").as_array()) {
    EXPECT_EQ(job.at("no_requeue"), boost::json::value(true));
    EXPECT_FALSE(job.as_object().contains("requeue"));
    EXPECT_EQ(job.at("environment"), boost::json::value(boost::json::object{{"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"LANG", "C.UTF-8"}}));
    EXPECT_FALSE(job.as_object().contains("script"));
  }
}

// 22.05 answers an unknown key with HTTP 400: every key written must be one it accepts.
TEST_F(DialectV0038Test, WritesOnlyKeysThatSlurm2205Accepts) {
  const auto spec = boost::json::parse(testing::fixture("openapi-v0.0.38-served.json"));
  std::set<std::string> accepted{"no_requeue"};  // accepted by slurm_opt.c, "not in OAS"
  for (const auto& [key, value] : spec.at("components").at("schemas").at("v0.0.38_job_properties").at("properties").as_object()) {
    accepted.insert(std::string(key));
  }
  auto description = testing::hetjob_description();
  description.reservation = "maint";
  description.wckey = "tp";
  description.exclusive = true;
  description.hold = true;
  const auto body = boost::json::parse(*m_dialect->encode_submit(description));
  for (const auto& job : body.at("jobs").as_array()) {
    for (const auto& [key, value] : job.as_object()) EXPECT_TRUE(accepted.count(std::string(key))) << key;
  }
}

TEST_F(DialectV0038Test, DecodesSubmitReceiptsAndRefusals) {
  const auto accepted = m_dialect->decode_submit(testing::transcript_v0038("submit").response_body);
  ASSERT_TRUE(accepted.ok());
  EXPECT_EQ(accepted->job_id, 2u);
  EXPECT_EQ(accepted->release, "22.05.8");
  const auto refused = m_dialect->decode_submit(testing::transcript_v0038("submit_badconstraint").response_body);
  EXPECT_FALSE(refused->job_id);
  ASSERT_EQ(refused->errors.size(), 1u);
  EXPECT_EQ(refused->errors[0].number, 2029);
  const auto held = m_dialect->decode_submit(testing::transcript_v0038("submit_hold").response_body);
  EXPECT_EQ(held->job_id, 11u);
  EXPECT_EQ(held->errors.at(0).number, 2042);
  EXPECT_FALSE(m_dialect->decode_submit(testing::transcript_v0038("submit_badjson").response_body).ok());
}

TEST_F(DialectV0038Test, DecodesRawWaitStatusesIntoExitCodesAndSignals) {
  const auto failed = m_dialect->decode_jobs(testing::transcript_v0038("get_job_failed").response_body)->jobs.at(0);
  EXPECT_EQ(failed.state.base, SlurmBaseState::failed);
  EXPECT_EQ(failed.exit_code, 3);  // raw 768
  EXPECT_FALSE(failed.exit_signal);
  const auto cancelled = m_dialect->decode_jobs(testing::transcript_v0038("get_job_cancelled").response_body)->jobs.at(0);
  EXPECT_EQ(cancelled.state.base, SlurmBaseState::cancelled);
  EXPECT_EQ(cancelled.exit_signal, 15);
  const auto timeout = m_dialect->decode_jobs(testing::transcript_v0038("get_job_timeout").response_body)->jobs.at(0);
  EXPECT_EQ(timeout.state.base, SlurmBaseState::timeout);
  EXPECT_EQ(timeout.state_reason, "TimeLimit");
  const auto completed = m_dialect->decode_jobs(testing::transcript_v0038("get_job_completed").response_body)->jobs.at(0);
  EXPECT_EQ(completed.exit_code, 0);
  EXPECT_TRUE(completed.requeue);  // submitted with "requeue": false, which 22.05 ignores
  const auto running = m_dialect->decode_jobs(testing::transcript_v0038("get_job_running").response_body)->jobs.at(0);
  EXPECT_FALSE(running.exit_code);
  EXPECT_FALSE(running.exit_signal);
}

TEST_F(DialectV0038Test, NoRequeueShowsAsRequeueFalse) {
  const auto job = m_dialect->decode_jobs(testing::transcript_v0038("get_job_norequeue").response_body)->jobs.at(0);
  EXPECT_FALSE(job.requeue);
  EXPECT_TRUE(job.sluid.empty());
}

TEST_F(DialectV0038Test, DecodesAHeterogeneousJobAsOneRecordPerComponent) {
  const auto reply = m_dialect->decode_jobs(testing::transcript_v0038("get_hetjob_running").response_body);
  ASSERT_EQ(reply->jobs.size(), 2u);
  EXPECT_EQ(reply->jobs[0].job_id, 7u);
  EXPECT_EQ(reply->jobs[0].het_job_id, 7u);
  EXPECT_EQ(reply->jobs[0].het_job_offset, 0u);
  EXPECT_EQ(reply->jobs[0].comment, "het component 0");
  EXPECT_EQ(reply->jobs[1].job_id, 8u);
  EXPECT_EQ(reply->jobs[1].het_job_offset, 1u);
  EXPECT_EQ(reply->jobs[0].state.base, SlurmBaseState::running);
  EXPECT_EQ(reply->jobs[0].start_time, from_unix_seconds(1796039053));
}

TEST_F(DialectV0038Test, CompletingReplacesTheBaseState) {
  const auto reply = m_dialect->decode_jobs(R"J({"jobs":[{"job_id":5,"job_state":"COMPLETING","exit_code":256}]})J");
  const auto& job = reply->jobs.at(0);
  EXPECT_FALSE(job.state.base_known);
  EXPECT_TRUE(job.state.holds_resources());
  EXPECT_EQ(job.exit_code, 1);
}

TEST_F(DialectV0038Test, NamesAndCommentsWithSpecialCharactersRoundTrip) {
  const auto transcript = testing::transcript_v0038("get_specialchars");
  const auto job = m_dialect->decode_jobs(transcript.response_body)->jobs.at(0);
  const auto raw = boost::json::parse(transcript.response_body).at("jobs").at(0);
  EXPECT_EQ(job.name, std::string(raw.at("name").as_string()));
  EXPECT_EQ(job.comment, std::string(raw.at("comment").as_string()));
  EXPECT_NE(job.name.find('$'), std::string::npos);
}

TEST_F(DialectV0038Test, DecodesDeleteAnswers) {
  EXPECT_EQ(m_dialect->decode_cancel(testing::transcript_v0038("delete_job").response_body)->status, CancelStatus::signalled);
  EXPECT_EQ(m_dialect->decode_cancel(testing::transcript_v0038("delete_job_again").response_body)->status,
            CancelStatus::signalled);
  EXPECT_EQ(m_dialect->decode_cancel(testing::transcript_v0038("delete_job_nonexistent").response_body)->status,
            CancelStatus::not_found);
  EXPECT_EQ(m_dialect->decode_cancel(testing::transcript_v0038("nobody_delete_root_job").response_body)->status,
            CancelStatus::refused);
}

TEST_F(DialectV0038Test, DecodesPingAndPartitions) {
  const auto ping = m_dialect->decode_ping(testing::transcript_v0038("ping").response_body);
  EXPECT_TRUE(ping->responding);
  EXPECT_EQ(ping->status, "UP");
  const auto partitions = m_dialect->decode_partitions(testing::transcript_v0038("get_partitions").response_body);
  EXPECT_EQ(partitions->names, std::vector<std::string>{"debug"});
  EXPECT_EQ(m_dialect->preflight_path(), "/slurm/v0.0.38/ping");
}

TEST_F(DialectV0038Test, UnchangedIs304) {
  EXPECT_TRUE(m_dialect->unchanged(304, nullptr));
  EXPECT_FALSE(m_dialect->unchanged(200, nullptr));
}

// Every transcript with a JSON answer decodes with the decoder its request calls for.
TEST_F(DialectV0038Test, DecodesEveryRecordedAnswer) {
  const std::string folder = std::string(TP_SOURCE_DIR) + "/tests/fixtures/slurm/samples-v0.0.38";
  DIR* dir = ::opendir(folder.c_str());
  ASSERT_NE(dir, nullptr) << folder;
  int decoded = 0;
  while (dirent* entry = ::readdir(dir)) {
    std::string name = entry->d_name;
    if (name.size() < 5 || name.substr(name.size() - 4) != ".txt") continue;
    name.resize(name.size() - 4);
    const auto transcript = testing::transcript_v0038(name);
    if (transcript.method.empty() || transcript.response_body.find('{') == std::string::npos) continue;
    auto base = m_dialect->decode_base(transcript.response_body);
    ASSERT_TRUE(base.ok()) << name << ": " << base.error().message();
    EXPECT_EQ(base->release, "22.05.8") << name;
    const std::string& target = transcript.target;
    if (transcript.method == "POST") {
      const auto reply = m_dialect->decode_submit(transcript.response_body);
      EXPECT_TRUE(reply.ok()) << name;
      if (transcript.status == 200) {
        EXPECT_TRUE(reply->job_id) << name;
      }
    } else if (transcript.method == "DELETE") {
      EXPECT_TRUE(m_dialect->decode_cancel(transcript.response_body).ok()) << name;
    } else if (target.find("/job") != std::string::npos) {
      EXPECT_TRUE(m_dialect->decode_jobs(transcript.response_body).ok()) << name;
    } else if (target.find("/ping") != std::string::npos) {
      // 22.05's bad-token answers carry only meta and errors.
      EXPECT_EQ(m_dialect->decode_ping(transcript.response_body).ok(), transcript.status == 200) << name;
    } else if (target.find("/partitions") != std::string::npos) {
      EXPECT_TRUE(m_dialect->decode_partitions(transcript.response_body).ok()) << name;
    }
    ++decoded;
  }
  ::closedir(dir);
  EXPECT_GT(decoded, 40);
}

}  // namespace
}  // namespace tpslurm::slurm
