// The API inside the real `serve` against tools/slurmrestd-sim: a job submitted over HTTP
// reaches Slurm within the daemon's tick, not at the next poll cycle, as one the CLI submits
// does; its cancel is applied; SIGTERM stops both and removes the socket. GET /metrics shows
// the submit, its REST calls, the poll and the token. A tokens file with a bad line keeps
// `serve` from starting.
#include <signal.h>
#include <sys/stat.h>

#include <boost/json.hpp>
#include <chrono>
#include <thread>

#include "http_client.h"
#include "journal/journal.h"
#include "reconcile/binary_fixture.h"
#include "support/background_process.h"
#include "support/eventually.h"
#include "support/exposition.h"

namespace tpslurm::api::testing {
namespace {

using tpslurm::testing::eventually;

namespace json = boost::json;
const std::string kToken = "tpcanary-platform-0123456789";

class ServeApiTest : public reconcile::testing::BinaryTest {
 protected:
  void SetUp() override {
    start_sim("26.05.3");
    m_socket = m_dir.file("api.sock");
    m_env = api_environment(m_dir.file("deploy"), m_socket, kToken);
  }

  HttpAnswer call(const std::string& method, const std::string& target, const std::string& body = "") {
    return http({0, m_socket}, method, target, body, {"Authorization: Bearer " + kToken});
  }

  std::optional<journal::JobRecord> job(const std::string& job_id) {
    SystemClock clock;
    journal::OpenOptions options;
    options.mode = journal::OpenOptions::Mode::read_only;
    auto journal = journal::Journal::open(m_env.at("TUNEPLANE_STATE_DIR") + "/journal.db", clock, options);
    if (!journal.ok()) return std::nullopt;
    auto record = (*journal)->job(job_id);
    return record.ok() ? *record : std::nullopt;
  }

  std::string log() { return tpslurm::testing::read_test_file(m_dir.file("serve.log")); }

  tpslurm::testing::EnvironmentMap m_env;
  std::string m_socket;
};

TEST_F(ServeApiTest, AJobSubmittedOverHttpReachesSlurmWithinTheTickAndItsCancelIsApplied) {
  ASSERT_EQ(cli(m_env, {"migrate"}).exit_code, 0);
  std::string error;
  auto serve = tpslurm::testing::BackgroundProcess::start({TP_BINARY, "serve"}, m_env, m_dir.file("serve.log"), error);
  ASSERT_TRUE(serve) << error;
  ASSERT_TRUE(eventually([&] { return http({0, m_socket}, "GET", "/healthz").status == 200; })) << log();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the first cycle has run: nothing to do
  const auto submitted = call("POST", "/v1/jobs", tpslurm::testing::read_test_file(request_file(m_dir.path(), "h1")));
  ASSERT_EQ(submitted.status, 201) << submitted.body;
  // Running within 20 s although the next cycle is 60 s away: the daemon noticed the new job.
  EXPECT_TRUE(eventually([&] {
    const auto shown = call("GET", "/v1/jobs/h1");
    return shown.status == 200 && json::parse(shown.body).at("attempts").as_array().size() == 1 &&
           !json::parse(shown.body).at("attempts").as_array()[0].at("released_at").is_null();
  })) << log();
  EXPECT_EQ(m_sim->stat("submits_received"), 1);

  ASSERT_EQ(call("POST", "/v1/jobs/h1/cancel", "{\"reason\": \"no longer needed\"}").status, 200);
  // Applied without waiting for the next cycle, as the CLI's.
  EXPECT_TRUE(eventually([&] {
    const auto shown = call("GET", "/v1/jobs/h1");
    return shown.status == 200 && json::parse(shown.body).at("attempts").as_array()[0].at("state") == "cancelled";
  })) << log();
  auto record = job("h1");
  ASSERT_TRUE(record);
  EXPECT_EQ(record->desire_reason, "no longer needed (by platform)");

  serve->signal(SIGTERM);
  EXPECT_EQ(serve->wait(), 0) << log();
  struct stat info {};
  EXPECT_NE(::lstat(m_socket.c_str(), &info), 0) << "the socket outlived serve";
  EXPECT_NE(log().find("API listening on unix:" + m_socket), std::string::npos) << log();
  EXPECT_EQ(log().find(kToken), std::string::npos);
}

TEST_F(ServeApiTest, MetricsShowTheSubmitItsRestCallsThePollAndTheTokenBehindTheBearerToken) {
  ASSERT_EQ(cli(m_env, {"migrate"}).exit_code, 0);
  std::string error;
  auto serve = tpslurm::testing::BackgroundProcess::start({TP_BINARY, "serve"}, m_env, m_dir.file("serve.log"), error);
  ASSERT_TRUE(serve) << error;
  ASSERT_TRUE(eventually([&] { return http({0, m_socket}, "GET", "/healthz").status == 200; })) << log();
  ASSERT_EQ(call("POST", "/v1/jobs", tpslurm::testing::read_test_file(request_file(m_dir.path(), "m1"))).status, 201);
  ASSERT_TRUE(eventually([&] {
    const auto shown = call("GET", "/v1/jobs/m1");
    return shown.status == 200 && json::parse(shown.body).at("attempts").as_array().size() == 1 &&
           !json::parse(shown.body).at("attempts").as_array()[0].at("released_at").is_null();
  })) << log();

  EXPECT_EQ(http({0, m_socket}, "GET", "/metrics").status, 401);
  const auto answer = call("GET", "/metrics");
  ASSERT_EQ(answer.status, 200) << answer.body;
  EXPECT_EQ(answer.headers.at("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  const auto e = tpslurm::testing::parse_exposition(answer.body);
  EXPECT_TRUE(e.bad_lines.empty()) << e.bad_lines.front();
  EXPECT_EQ(e.value("tuneplane_submit_outcomes_total", {{"class", "ok"}}), 1) << answer.body;
  EXPECT_EQ(e.value("tuneplane_slurm_rest_calls_total", {{"endpoint", "job/submit"}, {"method", "POST"}}),
            m_sim->stat("submits_received"));
  EXPECT_GT(*e.value("tuneplane_slurm_rest_sent_bytes_total", {{"endpoint", "job/submit"}}), 0);
  // Identified by GET and released by POST on job/{id}, never under the job's own id.
  EXPECT_GE(e.value("tuneplane_slurm_rest_calls_total", {{"endpoint", "job/{id}"}, {"method", "GET"}}).value_or(0), 1);
  EXPECT_GE(e.value("tuneplane_slurm_rest_calls_total", {{"endpoint", "job/{id}"}, {"method", "POST"}}).value_or(0), 1);
  EXPECT_TRUE(e.value("tuneplane_status_poll_lag_seconds")) << answer.body;
  EXPECT_EQ(e.value("tuneplane_slurm_request_rate"), 1000) << "the default ceiling: every answer came quickly";
  EXPECT_GE(e.value("tuneplane_journal_commit_duration_seconds_count").value_or(0), 4);
  EXPECT_GT(e.value("tuneplane_slurm_token_expiry_timestamp_seconds").value_or(0), 1.7e9);
  EXPECT_EQ(e.value("tuneplane_attempts", {{"state", "submitted"}}).value_or(-1) +
                e.value("tuneplane_attempts", {{"state", "pending"}}).value_or(-1) +
                e.value("tuneplane_attempts", {{"state", "running"}}).value_or(-1),
            1);
  EXPECT_EQ(e.value("tuneplane_blocked_submissions"), 0);
  for (const auto& sample : e.samples) {
    for (const auto& [label, value] : sample.labels) {
      EXPECT_EQ(value.find("m1"), std::string::npos) << sample.name << " carries the job's id";
    }
  }

  serve->signal(SIGTERM);
  EXPECT_EQ(serve->wait(), 0) << log();
  EXPECT_EQ(log().find(kToken), std::string::npos);
}

TEST_F(ServeApiTest, ABadTokensFileKeepsServeFromStarting) {
  tpslurm::testing::write_test_file(m_dir.file("api-tokens"), "platform\n");
  const auto refused = cli(m_env, {"serve"});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("TUNEPLANE_API_TOKENS_FILE " + m_dir.file("api-tokens") +
                             " line 1: expected `NAME TOKEN SCOPES` (SCOPES: read, submit and operate, comma-separated)"),
            std::string::npos)
      << refused.err;
}

}  // namespace
}  // namespace tpslurm::api::testing
