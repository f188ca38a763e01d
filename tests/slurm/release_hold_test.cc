// release_hold(): `POST job/<numeric id>` with {"hold": false}, never a SLUID; a ref carrying a
// tag (or a SLUID) is checked against a fresh read first; on v0.0.4x every component of a
// heterogeneous job is released by its own id, the leader last; the answer's errors decide.
#include <gtest/gtest.h>

#include "fake_transport.h"
#include "slurm/rest_client.h"
#include "test_support.h"

namespace tpslurm::slurm {
namespace {

constexpr char kReleased45[] =
    R"({"results": null, "meta": {"slurm": {"release": "26.05.3"}}, "errors": [], "warnings": []})";
constexpr char kEnded45[] =
    R"J({"results": null, "meta": {"slurm": {"release": "26.05.3"}}, "errors": [{"description": "Job update requested failed", "error_number": 2084, "error": "Job has already finished", "source": "slurm_update_job2()"}], "warnings": []})J";
constexpr char kReleased38[] = R"({"meta": {"Slurm": {"release": "22.05.8"}}, "errors": []})";

std::string error38(int number, const std::string& error) {
  return R"({"meta": {"Slurm": {"release": "22.05.8"}}, "errors": [{"description": "job update from 127.0.0.1 failed", "error_number": )" +
         std::to_string(number) + R"(, "error": ")" + error + R"(", "source": "_parse_job_list"}]})";
}

class ReleaseHoldTest : public ::testing::Test {
 protected:
  std::unique_ptr<RestClient> client(const std::string& version) {
    auto made = RestClient::create(m_transport, m_tokens, version);
    EXPECT_TRUE(made.ok());
    return std::move(made).value();
  }
  // "POST /slurm/v0.0.45/job/15 {"hold":false}" for every request sent, in order.
  std::vector<std::string> sent() const {
    std::vector<std::string> out;
    for (const auto& request : m_transport.requests()) {
      out.push_back(std::string(to_string(request.method)) + " " + request.target +
                    (request.body.empty() ? "" : " " + request.body));
    }
    return out;
  }

  testing::FakeTransport m_transport;
  testing::StaticTokenSource m_tokens;
};

TEST_F(ReleaseHoldTest, V0038PostsHoldFalseToTheNumericIdOnce) {
  m_transport.answer(HttpMethod::post, "/slurm/v0.0.38/job/11", 200, kReleased38);
  const ReleaseResult result = client("v0.0.38")->release_hold({11, ""});
  EXPECT_EQ(result.outcome, Outcome::ok) << result.message;
  EXPECT_FALSE(result.already_ended);
  EXPECT_EQ(result.message, "");
  EXPECT_EQ(result.release, "22.05.8");
  // 22.05's update_job_str() releases every component of a leader: one POST is enough.
  EXPECT_EQ(sent(), std::vector<std::string>{R"(POST /slurm/v0.0.38/job/11 {"hold":false})"});
}

TEST_F(ReleaseHoldTest, V0045ReleasesEveryComponentByItsOwnIdTheLeaderLast) {
  m_transport.answer(HttpMethod::get, "/slurm/v0.0.45/job/14", 200, testing::response_v0045("14_get_hetjob_leader"));
  m_transport.answer(HttpMethod::post, "/slurm/v0.0.45/job/15", 200, kReleased45);
  m_transport.answer(HttpMethod::post, "/slurm/v0.0.45/job/14", 200, kReleased45);
  const model::JobTag tag{"sample-het", "hetjob component 0", "/tmp/slurm26/jobs"};
  const ReleaseResult result = client("v0.0.45")->release_hold({14, "", tag});
  EXPECT_EQ(result.outcome, Outcome::ok) << result.message;
  EXPECT_EQ(sent(),
            (std::vector<std::string>{"GET /slurm/v0.0.45/job/14", R"(POST /slurm/v0.0.45/job/15 {"hold":false})",
                                      R"(POST /slurm/v0.0.45/job/14 {"hold":false})"}));
}

// identify has just read and checked the records in the same pass: they name the components,
// and nothing is read again.
TEST_F(ReleaseHoldTest, RecordsJustCheckedAreNotReadAgain) {
  auto rest = client("v0.0.45");
  m_transport.answer(HttpMethod::get, "/slurm/v0.0.45/job/14", 200, testing::response_v0045("14_get_hetjob_leader"));
  const JobsResult read = rest->get_job({14, ""});
  ASSERT_TRUE(read.ok()) << read.message;
  ASSERT_EQ(read.jobs.size(), 2u);
  m_transport.answer(HttpMethod::post, "/slurm/v0.0.45/job/15", 200, kReleased45);
  m_transport.answer(HttpMethod::post, "/slurm/v0.0.45/job/14", 200, kReleased45);
  const model::JobTag tag{"sample-het", "hetjob component 0", "/tmp/slurm26/jobs"};
  const ReleaseResult result = rest->release_hold({14, "", tag}, read.jobs);
  EXPECT_EQ(result.outcome, Outcome::ok) << result.message;
  EXPECT_EQ(sent(),
            (std::vector<std::string>{"GET /slurm/v0.0.45/job/14", R"(POST /slurm/v0.0.45/job/15 {"hold":false})",
                                      R"(POST /slurm/v0.0.45/job/14 {"hold":false})"}))
      << "one read: identify's";
}

// Job update does not take a SLUID (26.05.3 answers one with 2017): the SLUID is checked
// against the record, the POST goes to the number.
TEST_F(ReleaseHoldTest, On2605TheSluidIsCheckedButTheNumericIdIsUpdated) {
  auto rest = client("v0.0.45");
  m_transport.answer(HttpMethod::get, "/slurm/v0.0.45/job/12", 200, testing::response_v0045("05_get_job_by_id"));
  (void)rest->get_job({12, ""});  // learns the release: 26.05.3, SLUIDs in paths
  m_transport.answer(HttpMethod::post, "/slurm/v0.0.45/job/12", 200, kReleased45);
  const ReleaseResult result = rest->release_hold({12, "sEE9M8P5JF1X00"});
  EXPECT_EQ(result.outcome, Outcome::ok) << result.message;
  EXPECT_EQ(sent().back(), R"(POST /slurm/v0.0.45/job/12 {"hold":false})");
  const ReleaseResult reused = rest->release_hold({12, "sEE9M8P5JF1X99"});
  EXPECT_EQ(reused.outcome, Outcome::rejected);
  EXPECT_EQ(reused.message,
            "POST /slurm/v0.0.45/job/12: not sent: job 12 is not the job asked for: it now carries SLUID "
            "sEE9M8P5JF1X00, not sEE9M8P5JF1X99 (a reused id or a requeued job)");
}

TEST_F(ReleaseHoldTest, AJobThatDoesNotCarryTheTagIsNotReleased) {
  m_transport.answer(HttpMethod::post, "/slurm/v0.0.38/job/2", 200, kReleased38);
  m_transport.answer(HttpMethod::get, "/slurm/v0.0.38/job/2", 200,
                     testing::transcript_v0038("get_job_running").response_body);
  const model::JobTag tag{"tp-prod-train-7-1", "tuneplane:0b6f8c1e", "/shared/elsewhere"};
  const ReleaseResult result = client("v0.0.38")->release_hold({2, "", tag});
  EXPECT_EQ(result.outcome, Outcome::rejected);
  EXPECT_EQ(result.message.rfind("POST /slurm/v0.0.38/job/2: not sent: job 2 is not the job asked for: ", 0), 0u)
      << result.message;
  EXPECT_EQ(sent(), std::vector<std::string>{"GET /slurm/v0.0.38/job/2"});
}

TEST_F(ReleaseHoldTest, AnUnknownJobIsNotFound) {
  m_transport.answer(HttpMethod::post, "/slurm/v0.0.38/job/99", 500, error38(2017, "Invalid job id specified"));
  const ReleaseResult v38 = client("v0.0.38")->release_hold({99, ""});
  EXPECT_EQ(v38.outcome, Outcome::not_found);
  EXPECT_EQ(v38.message,
            "POST /slurm/v0.0.38/job/99: Invalid job id specified (job update from 127.0.0.1 failed) (error 2017)");
  // v0.0.4x reads first: a job that is gone is never posted to.
  m_transport.answer(HttpMethod::get, "/slurm/v0.0.45/job/999999", 404,
                     testing::response_v0045("25_get_unknown_job_id"));
  const ReleaseResult v45 = client("v0.0.45")->release_hold({999999, ""});
  EXPECT_EQ(v45.outcome, Outcome::not_found);
  EXPECT_EQ(v45.message.rfind("not released: GET /slurm/v0.0.45/job/999999: Invalid job id specified", 0), 0u)
      << v45.message;
  EXPECT_EQ(sent().back(), "GET /slurm/v0.0.45/job/999999");
}

TEST_F(ReleaseHoldTest, AJobThatAlreadyEndedIsOkAndSaysSo) {
  m_transport.answer(HttpMethod::get, "/slurm/v0.0.45/job/12", 200, testing::response_v0045("05_get_job_by_id"));
  m_transport.answer(HttpMethod::post, "/slurm/v0.0.45/job/12", 200, kEnded45);
  const ReleaseResult v45 = client("v0.0.45")->release_hold({12, ""});
  EXPECT_EQ(v45.outcome, Outcome::ok) << v45.message;
  EXPECT_TRUE(v45.already_ended);
  EXPECT_EQ(v45.message,
            "POST /slurm/v0.0.45/job/12: Job has already finished (Job update requested failed) (error 2084)");
  // 22.05 answers the same refusal with HTTP 500.
  m_transport.answer(HttpMethod::post, "/slurm/v0.0.38/job/12", 500, error38(2084, "Job has already finished"));
  const ReleaseResult v38 = client("v0.0.38")->release_hold({12, ""});
  EXPECT_EQ(v38.outcome, Outcome::ok) << v38.message;
  EXPECT_TRUE(v38.already_ended);
}

TEST_F(ReleaseHoldTest, ARefusalIsRejectedAndALostAnswerUncertain) {
  m_transport.answer(HttpMethod::post, "/slurm/v0.0.38/job/5", 500,
                     error38(2010, "User's UID not permitted to update"));
  const ReleaseResult refused = client("v0.0.38")->release_hold({5, ""});
  EXPECT_EQ(refused.outcome, Outcome::rejected);
  EXPECT_EQ(refused.message,
            "POST /slurm/v0.0.38/job/5: not updated: User's UID not permitted to update (job update from 127.0.0.1 "
            "failed) (error 2010)");
  m_transport.fail("/slurm/v0.0.38/job/6", Delivery::uncertain, TransportFault::send_timeout);
  const ReleaseResult lost = client("v0.0.38")->release_hold({6, ""});
  EXPECT_EQ(lost.outcome, Outcome::uncertain);
  EXPECT_EQ(lost.http_status, 0);
}

TEST_F(ReleaseHoldTest, AComponentThatCannotBeReleasedStopsBeforeTheLeader) {
  m_transport.answer(HttpMethod::get, "/slurm/v0.0.45/job/14", 200, testing::response_v0045("14_get_hetjob_leader"));
  m_transport.fail("/slurm/v0.0.45/job/15", Delivery::uncertain, TransportFault::reset);
  const ReleaseResult result = client("v0.0.45")->release_hold({14, ""});
  EXPECT_EQ(result.outcome, Outcome::uncertain);
  EXPECT_EQ(result.message.rfind("POST /slurm/v0.0.45/job/15: may have been received", 0), 0u) << result.message;
  EXPECT_EQ(sent().back(), R"(POST /slurm/v0.0.45/job/15 {"hold":false})");
}

TEST_F(ReleaseHoldTest, WithoutANumericIdNothingIsSent) {
  const ReleaseResult result = client("v0.0.45")->release_hold({0, "sEE9M8P5JF1X00"});
  EXPECT_EQ(result.outcome, Outcome::rejected);
  EXPECT_EQ(result.message, "release hold: no numeric job id given; job update does not take SLUIDs");
  EXPECT_TRUE(m_transport.requests().empty());
}

}  // namespace
}  // namespace tpslurm::slurm
