// RestClient over a fake transport with real recorded answers: which id each operation uses
// on which server, version detection, and how reads and cancels are classified.
#include "slurm/rest_client.h"

#include <gtest/gtest.h>

#include "fake_transport.h"
#include "test_support.h"

namespace tpslurm::slurm {
namespace {

using testing::FakeTransport;

class RestClientTest : public ::testing::Test {
 protected:
  std::unique_ptr<RestClient> client(const std::string& version) {
    auto made = RestClient::create(m_transport, m_tokens, version);
    EXPECT_TRUE(made.ok());
    return std::move(made).value();
  }
  void serve_2605() {
    m_transport.answer("/slurm/v0.0.45/ping", 200, testing::response_v0045("01_ping_v0.0.45"));
    m_transport.answer("/slurm/v0.0.38/ping", 404, "Unable find requested URL.");
  }
  void serve_2205() { m_transport.answer("/slurm/v0.0.38/ping", 200, testing::transcript_v0038("ping").response_body); }

  FakeTransport m_transport;
  testing::StaticTokenSource m_tokens;
};

TEST_F(RestClientTest, RefusesAVersionThisBuildDoesNotSpeak) {
  auto made = RestClient::create(m_transport, m_tokens, "v0.0.39");
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error().message(),
            "TUNEPLANE_SLURM_REST_API_VERSION \"v0.0.39\": this build speaks v0.0.45, v0.0.44, v0.0.43, v0.0.42, "
            "v0.0.41, v0.0.40, v0.0.38 (or auto)");
}

TEST_F(RestClientTest, AutoPicksTheNewestOfferedVersionAndRecordsTheRelease) {
  serve_2605();
  const ServerResult server = client("auto")->detect();
  EXPECT_EQ(server.outcome, Outcome::ok);
  EXPECT_EQ(server.offered, std::vector<std::string>{"v0.0.45"});
  EXPECT_EQ(server.dialect, "v0.0.45");
  EXPECT_EQ(server.release, "26.05.3");
  EXPECT_TRUE(server.policy.sluid_in_paths);
}

TEST_F(RestClientTest, AutoOnDebians2205FallsBackToV0038AndDegradedIdentity) {
  serve_2205();
  const ServerResult server = client("auto")->detect();
  EXPECT_EQ(server.dialect, "v0.0.38");
  EXPECT_EQ(server.release, "22.05.8");
  EXPECT_TRUE(server.policy.degraded());
}

TEST_F(RestClientTest, AConfiguredVersionTheServerLacksIsExplained) {
  serve_2205();
  const ServerResult server = client("v0.0.45")->detect();
  EXPECT_EQ(server.outcome, Outcome::rejected);
  EXPECT_EQ(server.message,
            "slurmrestd at http://slurmrestd.test:6820 (release 22.05.8) offers v0.0.38, not the configured v0.0.45: "
            "set TUNEPLANE_SLURM_REST_API_VERSION to auto or to one of those");
}

// A 24.11.7 ping on v0.0.42 (docs/slurm.md) and the same on v0.0.40/41.
std::string ping_2411(std::string_view version) {
  return R"({"pings":[{"hostname":"vm","pinged":"UP","latency":90,"mode":"primary"}],)"
         R"("meta":{"plugin":{"type":"openapi/slurmctld","name":"Slurm OpenAPI slurmctld","data_parser":"data_parser/)" +
         std::string(version) +
         R"(","accounting_storage":""},"slurm":{"version":{"major":"24","micro":"7","minor":"11"},"release":"24.11.7",)"
         R"("cluster":"tp"}},"warnings":[],"errors":[]})";
}

TEST_F(RestClientTest, AutoOn2411PicksV0042AndItsReleaseRules) {
  for (const char* version : {"v0.0.40", "v0.0.41", "v0.0.42"}) {
    m_transport.answer("/slurm/" + std::string(version) + "/ping", 200, ping_2411(version));
  }
  auto rest = client("auto");
  const ServerResult server = rest->detect();
  ASSERT_EQ(server.outcome, Outcome::ok) << server.message;
  EXPECT_EQ(server.offered, (std::vector<std::string>{"v0.0.42", "v0.0.41", "v0.0.40"}));
  EXPECT_EQ(server.dialect, "v0.0.42");
  EXPECT_EQ(server.release, "24.11.7");
  EXPECT_TRUE(server.policy.degraded());
  (void)rest->preflight();
  EXPECT_EQ(m_transport.targets().back(), "/slurm/v0.0.42/jobs/state?job_id=1");
}

TEST_F(RestClientTest, APinnedVersionFollowsTheReleaseDetectFinds) {
  // 23.11.4 binds no jobs/state: the pre-flight is diag there.
  m_transport.answer("/slurm/v0.0.40/ping", 200,
                     R"({"pings":[],"meta":{"slurm":{"version":{"major":"23","micro":"4","minor":"11"},)"
                     R"("release":"23.11.4","cluster":"tp"}},"warnings":[],"errors":[]})");
  auto rest = client("v0.0.40");
  ASSERT_EQ(rest->detect().outcome, Outcome::ok);
  (void)rest->preflight();
  EXPECT_EQ(m_transport.targets().back(), "/slurm/v0.0.40/diag");
}

TEST_F(RestClientTest, AServerThatSpeaksNoneOfOursIsNamedWithWhatItServes) {
  // A 24.05 slurmrestd started with only the old plugin's data parser (-d v0.0.39).
  m_transport.answer("/openapi/v3", 200,
                     R"({"openapi":"3.0.2","paths":{"/slurm/v0.0.39/ping/":{},"/slurm/v0.0.39/jobs/":{}}})");
  const ServerResult server = client("auto")->detect();
  EXPECT_EQ(server.outcome, Outcome::rejected);
  EXPECT_EQ(server.message,
            "slurmrestd at http://slurmrestd.test:6820 (release unknown) serves v0.0.39; this build speaks v0.0.45, "
            "v0.0.44, v0.0.43, v0.0.42, v0.0.41, v0.0.40, v0.0.38 (Slurm 22.05 to 26.05). Have slurmrestd load the "
            "data_parser plugin of one of this build's versions (slurmrestd -d), or upgrade Slurm.");
}

TEST_F(RestClientTest, SendsTheUserAndTokenHeadersAndSubmitsOnAFreshConnection) {
  m_transport.answer("/slurm/v0.0.45/job/submit", 200, testing::response_v0045("04_submit_single"));
  m_transport.answer("/slurm/v0.0.45/job/12", 200, testing::response_v0045("05_get_job_by_id"));
  auto rest = client("v0.0.45");
  ASSERT_EQ(rest->submit(testing::cpu_description()).job_id, 12u);
  ASSERT_TRUE(rest->get_job({12, ""}).ok());

  const auto requests = m_transport.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].reuse, Reuse::forbidden);
  EXPECT_EQ(requests[1].reuse, Reuse::allowed);
  for (const auto& request : requests) {
    EXPECT_EQ(request.headers, (std::vector<std::pair<std::string, std::string>>{
                                   {"X-SLURM-USER-NAME", "alice"}, {"X-SLURM-USER-TOKEN", m_tokens.token()}}));
  }
}

TEST_F(RestClientTest, UsesTheSluidOnlyOnceTheServerIsKnownToAcceptIt) {
  m_transport.answer("/slurm/v0.0.45/job/12", 200, testing::response_v0045("05_get_job_by_id"));
  m_transport.answer("/slurm/v0.0.45/job/sEE9M8P5JF1X00", 200, testing::response_v0045("06_get_job_by_sluid"));
  auto rest = client("v0.0.45");
  // Release unknown: the conservative numeric id; the answer's meta says 26.05.3.
  EXPECT_EQ(rest->get_job({12, "sEE9M8P5JF1X00"}).release, "26.05.3");
  const JobsResult by_sluid = rest->get_job({12, "sEE9M8P5JF1X00"});
  EXPECT_EQ(by_sluid.outcome, Outcome::ok);
  EXPECT_EQ(by_sluid.jobs.at(0).sluid, "sEE9M8P5JF1X00");
  EXPECT_EQ(m_transport.targets(),
            (std::vector<std::string>{"/slurm/v0.0.45/job/12", "/slurm/v0.0.45/job/sEE9M8P5JF1X00"}));
}

TEST_F(RestClientTest, CancelsByLeaderSluidOn2605AndByJobIdOn2205) {
  serve_2605();
  m_transport.answer("/slurm/v0.0.45/job/sEE9M8P5JF1X00", 200, testing::response_v0045("08_delete_job_by_sluid"));
  auto rest = client("auto");
  ASSERT_TRUE(rest->detect().ok());
  EXPECT_EQ(rest->cancel({12, "sEE9M8P5JF1X00"}).outcome, Outcome::ok);
  EXPECT_EQ(m_transport.targets().back(), "/slurm/v0.0.45/job/sEE9M8P5JF1X00");

  FakeTransport old;
  old.answer("/slurm/v0.0.38/ping", 200, testing::transcript_v0038("ping").response_body);
  old.answer("/slurm/v0.0.38/job/9", 200, testing::transcript_v0038("delete_job").response_body);
  auto rest_2205 = RestClient::create(old, m_tokens, "v0.0.38");
  ASSERT_TRUE((*rest_2205)->detect().ok());
  EXPECT_EQ((*rest_2205)->cancel({9, "sEE9M8P5JF1X00"}).outcome, Outcome::ok);
  EXPECT_EQ(old.targets().back(), "/slurm/v0.0.38/job/9");
}

TEST_F(RestClientTest, ASluidAloneIsRefusedWhereServersCannotTakeIt) {
  serve_2205();
  auto rest = client("v0.0.38");
  ASSERT_TRUE(rest->detect().ok());
  const JobsResult result = rest->get_job({0, "sEE9M8P5JF1X00"});
  EXPECT_EQ(result.outcome, Outcome::rejected);
  EXPECT_EQ(
      result.message,
      "job sEE9M8P5JF1X00: this server does not accept SLUIDs in paths (degraded: identity is job id + tag (no SLUID "
      "in this server's or REST version's job records)); use the numeric job id");
}

TEST_F(RestClientTest, UnknownJobsAreNotFoundInBothDialects) {
  m_transport.answer("/slurm/v0.0.45/job/999999", 404, testing::response_v0045("25_get_unknown_job_id"));
  const JobsResult modern = client("v0.0.45")->get_job({999999, ""});
  EXPECT_EQ(modern.outcome, Outcome::not_found);
  EXPECT_EQ(modern.message,
            "GET /slurm/v0.0.45/job/999999: Invalid job id specified (Unable to query JobId=999999) (error 2017)");

  const auto transcript = testing::transcript_v0038("get_job_nonexistent");
  m_transport.answer(transcript.target, transcript.status, transcript.response_body);
  const JobsResult old = client("v0.0.38")->get_job({999999, ""});
  EXPECT_EQ(old.outcome, Outcome::not_found);
  EXPECT_EQ(old.message,
            "GET /slurm/v0.0.38/job/999999: Invalid job id specified (Unable to find JobId=999999) (error 2017)");
}

TEST_F(RestClientTest, AnInvalidJobIdIsRejected) {
  m_transport.answer("/slurm/v0.0.45/job/12", 422, testing::response_v0045("26_get_invalid_job_id"));
  const JobsResult result = client("v0.0.45")->get_job({12, ""});
  EXPECT_EQ(result.outcome, Outcome::rejected);
}

TEST_F(RestClientTest, CancelOutcomesFollowTheStatusList) {
  auto rest = client("v0.0.45");
  m_transport.answer("/slurm/v0.0.45/job/12", 200, testing::response_v0045("10_delete_job_again_after_cancel"));
  const CancelResult done = rest->cancel({12, ""});
  EXPECT_EQ(done.outcome, Outcome::ok);
  EXPECT_TRUE(done.already_done);

  m_transport.answer("/slurm/v0.0.45/job/999999", 200, testing::response_v0045("23_delete_unknown_job_id"));
  EXPECT_EQ(rest->cancel({999999, ""}).outcome, Outcome::not_found);

  m_transport.answer(
      "/slurm/v0.0.45/job/13", 200,
      R"J({"status":[{"error":{"string":"Access/permission denied","code":2002,"message":"Access/permission denied"},"step_id":"13"}],"errors":[],"warnings":[]})J");
  const CancelResult refused = rest->cancel({13, ""});
  EXPECT_EQ(refused.outcome, Outcome::rejected_transient);
  EXPECT_EQ(refused.message, "DELETE /slurm/v0.0.45/job/13: not signalled: Access/permission denied (error 2002)");

  m_transport.answer("/slurm/v0.0.45/job/14", 511, testing::response_v0045("36_auth_garbage_token_delete_job"));
  EXPECT_EQ(rest->cancel({14, ""}).outcome, Outcome::auth);
}

// 2020 is "not running" only for a signal the job would have taken while running: the default
// kill ends a pending job, so a 2020 answer to it is some other refusal.
TEST_F(RestClientTest, NotRunningIsTheRefusalOfASignalNotOfTheKill) {
  auto rest = client("v0.0.45");
  const std::string refusal =
      R"J({"status":[{"error":{"string":"Job can not be altered now, try again later","code":2020,"message":"Job can not be altered now, try again later"},"step_id":"15"}],"errors":[],"warnings":[]})J";
  m_transport.answer("/slurm/v0.0.45/job/15?signal=SIGTERM", 200, refusal);
  const CancelResult signalled = rest->cancel({15, ""}, "SIGTERM");
  EXPECT_EQ(signalled.outcome, Outcome::rejected_transient);
  EXPECT_TRUE(signalled.not_running);
  m_transport.answer("/slurm/v0.0.45/job/15", 200, refusal);
  for (const std::string kill : {"", "SIGKILL"}) {
    if (!kill.empty()) m_transport.answer("/slurm/v0.0.45/job/15?signal=SIGKILL", 200, refusal);
    const CancelResult killed = rest->cancel({15, ""}, kill);
    EXPECT_EQ(killed.outcome, Outcome::rejected_transient) << kill;
    EXPECT_FALSE(killed.not_running) << kill;
    EXPECT_EQ(killed.message, "DELETE /slurm/v0.0.45/job/15" + std::string(kill.empty() ? "" : "?signal=SIGKILL") +
                                  ": not signalled: Job can not be altered now, try again later (error 2020)");
  }
}

TEST_F(RestClientTest, CancelOn2205MapsItsFiveHundreds) {
  auto rest = client("v0.0.38");
  const auto unknown = testing::transcript_v0038("delete_job_nonexistent");
  m_transport.answer(unknown.target, unknown.status, unknown.response_body);
  EXPECT_EQ(rest->cancel({999999, ""}).outcome, Outcome::not_found);
  const auto denied = testing::transcript_v0038("nobody_delete_root_job");
  m_transport.answer(denied.target, denied.status, denied.response_body);
  EXPECT_EQ(rest->cancel({23, ""}).outcome, Outcome::rejected_transient);
  m_transport.answer("/slurm/v0.0.38/job/10?signal=SIGUSR1", 200,
                     testing::transcript_v0038("delete_job_signal").response_body);
  EXPECT_EQ(rest->cancel({10, ""}, "SIGUSR1").outcome, Outcome::ok);
}

TEST_F(RestClientTest, UpdateTimePollsReportUnchangedInBothDialects) {
  const auto since = from_unix_seconds(1796040419);
  m_transport.answer("/slurm/v0.0.38/jobs?update_time=1796040419", 304, "");
  const JobsResult old = client("v0.0.38")->jobs_changed_since(since);
  EXPECT_EQ(old.outcome, Outcome::ok);
  EXPECT_TRUE(old.unchanged);
  EXPECT_EQ(old.message, "");

  m_transport.answer("/slurm/v0.0.45/jobs?update_time=1796040419", 200,
                     testing::response_v0045("18_jobs_update_time_now"));
  EXPECT_TRUE(client("v0.0.45")->jobs_changed_since(since).unchanged);

  const auto all = testing::transcript_v0038("get_jobs");
  m_transport.answer("/slurm/v0.0.38/jobs", 200, all.response_body);
  const JobsResult every = client("v0.0.38")->jobs_changed_since(std::nullopt);
  EXPECT_FALSE(every.unchanged);
  EXPECT_EQ(every.jobs.size(), 11u);
}

TEST_F(RestClientTest, PreflightOn2605IsAnAuthenticatedCall) {
  m_transport.answer("/slurm/v0.0.45/jobs/state?job_id=1", 511, testing::response_v0045("28_auth_expired_token_jobs"));
  const CallResult result = client("v0.0.45")->preflight();
  EXPECT_EQ(result.outcome, Outcome::auth);
  EXPECT_EQ(m_transport.targets(), std::vector<std::string>{"/slurm/v0.0.45/jobs/state?job_id=1"});
}

TEST_F(RestClientTest, PartitionsAreListed) {
  const auto transcript = testing::transcript_v0038("get_partitions");
  m_transport.answer("/slurm/v0.0.38/partitions", 200, transcript.response_body);
  EXPECT_EQ(client("v0.0.38")->partitions().names, std::vector<std::string>{"debug"});
}

}  // namespace
}  // namespace tpslurm::slurm
