// cancel() when the job can only be addressed by its id (servers before 26.05, v0.0.43,
// 22.05): an id may have been reused or the job requeued since it was identified, so a ref
// carrying a SLUID or a tag is checked against a fresh read before anything is signalled.
#include <gtest/gtest.h>

#include "fake_transport.h"
#include "slurm/rest_client.h"
#include "test_support.h"

namespace tpslurm::slurm {
namespace {

std::string as_release(std::string body, const std::string& release) {
  const std::string from = "\"release\": \"26.05.3\"";
  for (auto at = body.find(from); at != std::string::npos; at = body.find(from, at + 1)) {
    body.replace(at, from.size(), "\"release\": \"" + release + "\"");
  }
  return body;
}

class CancelIdentityTest : public ::testing::Test {
 protected:
  std::unique_ptr<RestClient> client(const std::string& version) {
    auto made = RestClient::create(m_transport, m_tokens, version);
    EXPECT_TRUE(made.ok());
    return std::move(made).value();
  }
  std::vector<std::string> deletes() const {
    std::vector<std::string> out;
    for (const auto& request : m_transport.requests()) {
      if (request.method == HttpMethod::del) out.push_back(request.target);
    }
    return out;
  }

  testing::FakeTransport m_transport;
  testing::StaticTokenSource m_tokens;
};

// FakeTransport answers by target, so GET and DELETE of /job/16 share an answer: transcript
// 40's record decodes as a cancel answer without a status list, which the test does not need.
TEST_F(CancelIdentityTest, On2511ChecksTheSluidThenCancelsById) {
  auto rest = client("v0.0.44");
  m_transport.answer("/slurm/v0.0.44/job/16", 200, as_release(testing::response_v0045("40_get_job_v0.0.44"), "25.11.7"));
  (void)rest->get_job({16, ""});  // learns the release: 25.11.7
  m_transport.answer("/slurm/v0.0.44/job/16", 200,
                     as_release(testing::response_v0045("40_get_job_v0.0.44"), "25.11.7").insert(1, R"("status": [],)"));
  const CancelResult result = rest->cancel({16, "sEE9M8P5KTGY00"});
  EXPECT_EQ(result.outcome, Outcome::ok) << result.message;
  EXPECT_EQ(deletes(), std::vector<std::string>{"/slurm/v0.0.44/job/16"});
}

// A fresh client does not know the release yet: the check's own read teaches it.
TEST_F(CancelIdentityTest, On2511RefusesWhenTheIdNowCarriesAnotherSluid) {
  auto rest = client("v0.0.44");
  m_transport.answer("/slurm/v0.0.44/job/16", 200, as_release(testing::response_v0045("40_get_job_v0.0.44"), "25.11.7"));
  const CancelResult result = rest->cancel({16, "sEE9M8P5KTGY99"});
  EXPECT_EQ(result.outcome, Outcome::rejected);
  EXPECT_EQ(result.message,
            "DELETE /slurm/v0.0.44/job/16: not sent: job 16 is not the job asked for: it now carries SLUID "
            "sEE9M8P5KTGY00, not sEE9M8P5KTGY99 (a reused id or a requeued job)");
  EXPECT_FALSE(result.another_job) << "without a tag to compare, a new SLUID may be the job requeued";
  EXPECT_TRUE(deletes().empty());
}

// The record carries the tag (two of three marks) under a new SLUID: the job asked for, requeued.
TEST_F(CancelIdentityTest, On2511ARecordThatCarriesTheTagUnderANewSluidIsNotAnotherJob) {
  auto rest = client("v0.0.44");
  m_transport.answer("/slurm/v0.0.44/job/16", 200, as_release(testing::response_v0045("40_get_job_v0.0.44"), "25.11.7"));
  const model::JobTag tag{"sample-single", "tuneplane:edited-by-the-user", "/tmp/slurm26/jobs"};
  const CancelResult result = rest->cancel({16, "sEE9M8P5KTGY99", tag});
  EXPECT_EQ(result.outcome, Outcome::rejected);
  EXPECT_FALSE(result.another_job);
  EXPECT_TRUE(deletes().empty());
}

TEST_F(CancelIdentityTest, V0043ChecksTheTagThenCancelsById) {
  m_transport.answer("/slurm/v0.0.43/job/17", 200,
                     testing::response_v0045("43_get_job_v0.0.43").insert(1, R"("status": [],)"));
  const model::JobTag tag{"sample-single", "tuneplane:edited-by-the-user", "/tmp/slurm26/jobs"};
  const CancelResult result = client("v0.0.43")->cancel({17, "", tag});
  EXPECT_EQ(result.outcome, Outcome::ok) << result.message;
  EXPECT_EQ(deletes(), std::vector<std::string>{"/slurm/v0.0.43/job/17"});
}

TEST_F(CancelIdentityTest, V0043RefusesAJobThatDoesNotCarryTheTag) {
  m_transport.answer("/slurm/v0.0.43/job/17", 200, testing::response_v0045("43_get_job_v0.0.43"));
  const model::JobTag tag{"tp-prod-train-7-1", "tuneplane:0b6f8c1e", "/tmp/slurm26/jobs"};
  const CancelResult result = client("v0.0.43")->cancel({17, "", tag});
  EXPECT_EQ(result.outcome, Outcome::rejected);
  EXPECT_EQ(result.message,
            "DELETE /slurm/v0.0.43/job/17: not sent: job 17 is not the job asked for: its name, comment and working "
            "directory (\"sample-single\", \"submitted via slurmrestd v0.0.45\", \"/tmp/slurm26/jobs\") do not carry "
            "the tag (a reused id)");
  EXPECT_TRUE(result.another_job) << "the job asked for is no longer at that id";
  EXPECT_TRUE(deletes().empty());
}

TEST_F(CancelIdentityTest, AJobThatIsGoneIsNotFoundAndNothingIsSignalled) {
  const model::JobTag tag{"sample-single", "x", "/tmp/slurm26/jobs"};
  m_transport.answer("/slurm/v0.0.45/job/999999", 404, testing::response_v0045("25_get_unknown_job_id"));
  const CancelResult result = client("v0.0.45")->cancel({999999, "", tag});
  EXPECT_EQ(result.outcome, Outcome::not_found);
  EXPECT_EQ(result.message,
            "not cancelled: GET /slurm/v0.0.45/job/999999: Invalid job id specified (Unable to query JobId=999999) "
            "(error 2017)");
  EXPECT_TRUE(deletes().empty());
}

TEST_F(CancelIdentityTest, WithNothingToCheckItCancelsStraightAway) {
  m_transport.answer("/slurm/v0.0.45/job/12", 200, testing::response_v0045("10_delete_job_again_after_cancel"));
  const CancelResult result = client("v0.0.45")->cancel({12, ""});
  EXPECT_EQ(result.outcome, Outcome::ok);
  EXPECT_TRUE(result.already_done);
  EXPECT_EQ(m_transport.requests().size(), 1u);
}

// On 26.05 the SLUID goes in the path: slurmctld itself resolves it, nothing to check.
TEST_F(CancelIdentityTest, On2605TheSluidIsThePathAndNoReadIsNeeded) {
  auto rest = client("v0.0.45");
  m_transport.answer("/slurm/v0.0.45/job/12", 200, testing::response_v0045("05_get_job_by_id"));
  (void)rest->get_job({12, ""});
  m_transport.answer("/slurm/v0.0.45/job/sEE9M8P5JF1X00", 200, testing::response_v0045("08_delete_job_by_sluid"));
  const CancelResult result = rest->cancel({12, "sEE9M8P5JF1X00"});
  EXPECT_EQ(result.outcome, Outcome::ok) << result.message;
  EXPECT_EQ(deletes(), std::vector<std::string>{"/slurm/v0.0.45/job/sEE9M8P5JF1X00"});
  EXPECT_EQ(m_transport.requests().size(), 2u);
}

}  // namespace
}  // namespace tpslurm::slurm
