// POST /v1/attempts/{id}/resolve and GET /readyz inside the real `serve`, against
// tools/slurmrestd-sim: a submit whose answer was lost blocks its job; `absent` is refused
// during the quiet period; `adopt` refuses a job Slurm does not have, a job without the
// attempt's tag and a reference that is neither an id nor a SLUID, then adopts the real one,
// which the daemon identifies and releases — Slurm received one submit. /readyz names each
// check: ready, then not ready while paused, and while slurmrestd refuses the token.
#include <boost/json.hpp>
#include <cstdio>

#include "http_client.h"
#include "reconcile/binary_fixture.h"
#include "slurm/jwt.h"
#include "support/background_process.h"
#include "support/eventually.h"

namespace tpslurm::api::testing {
namespace {

using tpslurm::testing::eventually;

namespace json = boost::json;
const std::string kPlatformToken = "tpcanary-platform-0123456789";

class ServeResolveTest : public reconcile::testing::BinaryTest {
 protected:
  void start_serve(const std::string& release) {
    start_sim(release);
    m_socket = m_dir.file("api.sock");
    m_env = api_environment(m_dir.file("deploy"), m_socket, kPlatformToken);
    ASSERT_EQ(cli(m_env, {"migrate"}).exit_code, 0);
    std::string error;
    m_serve = tpslurm::testing::BackgroundProcess::start({TP_BINARY, "serve"}, m_env, m_dir.file("serve.log"), error);
    ASSERT_TRUE(m_serve) << error;
    ASSERT_TRUE(eventually([&] { return http({0, m_socket}, "GET", "/healthz").status == 200; })) << log();
  }

  HttpAnswer call(const std::string& method, const std::string& target, const std::string& body = "") {
    return http({0, m_socket}, method, target, body, {"Authorization: Bearer " + kPlatformToken});
  }

  json::value attempt(const std::string& job_id) {
    const auto shown = call("GET", "/v1/jobs/" + job_id);
    if (shown.status != 200) return nullptr;
    const auto attempts = json::parse(shown.body).at("attempts").as_array();
    return attempts.empty() ? json::value(nullptr) : attempts.back();
  }

  // The check of /readyz's answer named `name`.
  static json::object check_named(const json::value& ready, const std::string& name) {
    for (const auto& c : ready.at("checks").as_array()) {
      if (c.at("name").as_string() == name) return c.as_object();
    }
    return {};
  }

  std::string log() { return tpslurm::testing::read_test_file(m_dir.file("serve.log")); }

  tpslurm::testing::EnvironmentMap m_env;
  std::string m_socket;
  std::unique_ptr<tpslurm::testing::BackgroundProcess> m_serve;
};

TEST_F(ServeResolveTest, ABlockedSubmitIsAdoptedOverHttpOnlyWithTheAttemptsTag) {
  start_serve("22.05.8");
  // The answer is lost and every search fails: a1 stays blocked.
  fault(R"({"kind": "drop_response", "method": "POST", "path_prefix": "/slurm/v0.0.38/job/submit"})");
  fault(
      R"({"kind": "error_response", "status": 500, "method": "GET", "path_prefix": "/slurm/v0.0.38/jobs", "count": -1})");
  fault(R"({"kind": "accounting_outage"})");
  ASSERT_EQ(call("POST", "/v1/jobs", tpslurm::testing::read_test_file(request_file(m_dir.path(), "a1"))).status, 201);
  ASSERT_TRUE(eventually([&] {
    const auto a = attempt("a1");
    return a.is_object() && a.at("state") == "submit_unknown";
  })) << log();
  const std::string target = "/v1/attempts/a1%2F1/resolve";

  const auto early = call("POST", target, R"({"absent": true, "reason": "not in squeue"})");
  EXPECT_EQ(early.status, 409) << early.body;
  EXPECT_EQ(json::parse(early.body).at("error"), "too_early") << early.body;
  EXPECT_NE(early.body.find("quiet period"), std::string::npos) << early.body;

  const auto unknown = call("POST", target, R"({"adopt": "999"})");
  EXPECT_EQ(unknown.status, 422) << unknown.body;
  EXPECT_NE(unknown.body.find("cannot read Slurm job 999"), std::string::npos) << unknown.body;
  ASSERT_TRUE(
      m_sim->control(slurm::HttpMethod::post, "/sim/jobs/bulk", R"({"count": 1, "name_prefix": "someone-"})").ok());
  const auto stranger = call("POST", target, R"({"adopt": "2"})");
  EXPECT_EQ(stranger.status, 422) << stranger.body;
  EXPECT_EQ(json::parse(stranger.body).at("error"), "not_this_attempt") << stranger.body;
  const auto nonsense = call("POST", target, R"({"adopt": "12ab"})");
  EXPECT_EQ(nonsense.status, 422) << nonsense.body;
  EXPECT_EQ(json::parse(nonsense.body).at("problems").as_array()[0].at("field"), "adopt") << nonsense.body;
  const auto both = call("POST", target, R"({"adopt": "1", "absent": true, "reason": "x"})");
  EXPECT_EQ(both.status, 422) << both.body;
  EXPECT_EQ(call("POST", "/v1/attempts/a1%2F9/resolve", R"({"adopt": "1"})").status, 404);
  EXPECT_EQ(attempt("a1").at("state"), "submit_unknown");

  const auto adopted = call("POST", target, R"({"adopt": "1", "reason": "found in squeue"})");
  ASSERT_EQ(adopted.status, 200) << adopted.body;
  EXPECT_EQ(
      json::parse(adopted.body),
      json::parse(R"({"attempt": "a1/1", "job_id": "a1", "number": 1, "resolution": "adopted", "slurm_job_id": 1})"));
  // The daemon identifies and releases the adopted job at once, as the CLI's adoption.
  EXPECT_TRUE(eventually([&] {
    const auto a = attempt("a1");
    return a.is_object() && !a.at("released_at").is_null();
  })) << log();
  EXPECT_EQ(attempt("a1").at("found_by"), "operator");
  EXPECT_EQ(m_sim->stat("submits_received"), 1);
  const auto again = call("POST", target, R"({"adopt": "1"})");
  EXPECT_EQ(again.status, 409) << again.body;
  EXPECT_EQ(json::parse(again.body).at("error"), "not_blocked") << again.body;
  const auto audit = call("GET", "/v1/jobs/a1/audit");
  EXPECT_NE(audit.body.find("adopted by platform: found in squeue"), std::string::npos) << audit.body;
}

TEST_F(ServeResolveTest, ReadyzNamesEachCheckAndNeedsTheToken) {
  start_serve("26.05.3");
  EXPECT_EQ(http({0, m_socket}, "GET", "/readyz").status, 401);
  const auto ready = call("GET", "/readyz");
  ASSERT_EQ(ready.status, 200) << ready.body;
  const auto answer = json::parse(ready.body);
  EXPECT_EQ(answer.at("status"), "ready");
  for (const char* name : {"journal", "slurmrestd", "token", "paused"}) {
    EXPECT_EQ(check_named(answer, name)["ok"], true) << name << ": " << ready.body;
  }

  ASSERT_EQ(call("POST", "/v1/pause", R"({"reason": "storage maintenance"})").status, 200);
  const auto paused = call("GET", "/readyz");
  EXPECT_EQ(paused.status, 503) << paused.body;
  const auto paused_answer = json::parse(paused.body);
  EXPECT_EQ(paused_answer.at("status"), "not_ready");
  EXPECT_EQ(check_named(paused_answer, "paused")["ok"], false) << paused.body;
  EXPECT_NE(paused_answer.at("message").as_string().find("paused by platform"), std::string::npos) << paused.body;
  EXPECT_EQ(check_named(paused_answer, "journal")["ok"], true) << paused.body;
  ASSERT_EQ(call("POST", "/v1/resume", "{}").status, 200);
  EXPECT_EQ(call("GET", "/readyz").status, 200);

  // A token slurmrestd refuses: slurmrestd answers, the token check fails (once the reused
  // pre-flight answer is older than its 5 s).
  const std::string stranger = slurm::mint_hs256("a key this cluster does not know, 32+ bytes", "root",
                                                 SystemClock().now(), std::chrono::hours(1));
  tpslurm::testing::write_test_file(m_dir.file("jwt.new"), "SLURM_JWT=" + stranger + "\n",
                                    std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  ASSERT_EQ(std::rename(m_dir.file("jwt.new").c_str(), m_dir.file("jwt").c_str()), 0);
  json::value refused;
  EXPECT_TRUE(eventually([&] {
    const auto asked = call("GET", "/readyz");
    if (asked.status != 503) return false;
    refused = json::parse(asked.body);
    return check_named(refused, "token")["ok"] == false;
  })) << log();
  EXPECT_EQ(check_named(refused, "slurmrestd")["ok"], true) << json::serialize(refused);
  EXPECT_EQ(log().find(stranger), std::string::npos);
}

}  // namespace
}  // namespace tpslurm::api::testing
