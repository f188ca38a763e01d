// Every fault kind, seen from a client on the wire (libcurl), and its effect on the
// simulated cluster: response faults act after the request took effect, so a submit
// they hit has created its job; window faults act before anything happens.
#include <gtest/gtest.h>

#include <curl/curl.h>

#include <boost/json/parse.hpp>

#include "json_shape.h"
#include "sim_harness.h"

namespace tpslurm::sim::test {
namespace {

namespace json = boost::json;

constexpr char kSubmit[] = "/slurm/v0.0.45/job/submit";

std::int64_t jobs_created(const SimInstance& sim) {
  return control(sim, "GET", "/sim/stats").at("jobs_created").to_number<std::int64_t>();
}

void add_fault(const SimInstance& sim, const std::string& body) { control(sim, "POST", "/sim/faults", body); }

TEST(Faults, DropResponseCreatesTheJobAndClosesWithoutAnAnswer) {
  SimOptions options = test_options();
  SimInstance sim(options);
  add_fault(sim, R"({"kind": "drop_response", "method": "POST", "path_prefix": "/slurm/v0.0.45/job/submit"})");
  HttpResult r = slurm_call(sim, options, "POST", kSubmit, simple_job());
  EXPECT_EQ(r.curl_code, CURLE_GOT_NOTHING);
  EXPECT_EQ(jobs_created(sim), 1);
  EXPECT_EQ(control(sim, "GET", "/sim/jobs/1").at("name"), "job");
  // count 1: the next submit is answered.
  HttpResult next = slurm_call(sim, options, "POST", kSubmit, simple_job());
  EXPECT_EQ(next.status, 200);
  EXPECT_EQ(next.json().at("job_id").to_number<int>(), 2);
}

// The hazard the submit protocol guards against: libcurl re-sends a request that died on
// a reused connection before any byte of the answer came back, POSTs included. The
// simulator makes it visible: two submits received, two jobs created.
TEST(Faults, ADroppedAnswerOnAReusedConnectionMakesLibcurlResendThePost) {
  SimOptions options = test_options();
  SimInstance sim(options);
  HttpClient client;
  RequestOptions req;
  req.headers = auth_headers(options);
  ASSERT_EQ(client.request("GET", sim.url("/slurm/v0.0.45/ping"), req).status, 200);  // connection now kept alive
  add_fault(sim, R"({"kind": "drop_response", "method": "POST"})");
  req.body = simple_job();
  HttpResult reused = client.request("POST", sim.url(kSubmit), req);
  EXPECT_EQ(reused.curl_code, 0);  // libcurl hid the failure by sending the POST again
  EXPECT_EQ(reused.json().at("job_id").to_number<int>(), 2);
  json::value stats = control(sim, "GET", "/sim/stats");
  EXPECT_EQ(stats.at("submits_received").to_number<int>(), 2);
  EXPECT_EQ(stats.at("jobs_created").to_number<int>(), 2);

  // On a fresh connection the same fault surfaces as an empty reply, and nothing is re-sent.
  add_fault(sim, R"({"kind": "drop_response", "method": "POST"})");
  req.fresh_connection = true;
  EXPECT_EQ(client.request("POST", sim.url(kSubmit), req).curl_code, CURLE_GOT_NOTHING);
  EXPECT_EQ(control(sim, "GET", "/sim/stats").at("submits_received").to_number<int>(), 3);
}

TEST(Faults, ErrorResponseAnswersTheGivenStatusWithoutAJobIdAfterCreatingTheJob) {
  SimOptions options = test_options();
  SimInstance sim(options);
  for (int status : {500, 502, 504}) {
    add_fault(sim, R"({"kind": "error_response", "method": "POST", "status": )" + std::to_string(status) + "}");
    HttpResult r = slurm_call(sim, options, "POST", kSubmit, simple_job());
    ASSERT_EQ(r.curl_code, 0);
    EXPECT_EQ(r.status, status);
    EXPECT_EQ(r.headers["connection"], "Close");
    json::value body = r.json();
    EXPECT_FALSE(body.as_object().contains("job_id"));
    std::int64_t expected = status == 502 ? 1001 : status == 504 ? 5004 : -1;
    EXPECT_EQ(error_numbers(body), (std::vector<std::int64_t>{expected}));
  }
  EXPECT_EQ(jobs_created(sim), 3);
}

TEST(Faults, CloseAfterResponseAnswersAsIfKeepingTheConnectionThenClosesIt) {
  SimOptions options = test_options();
  SimInstance sim(options);
  HttpClient client;
  RequestOptions req;
  req.headers = auth_headers(options);
  // Without the fault a second request reuses the connection.
  ASSERT_EQ(client.request("GET", sim.url("/slurm/v0.0.45/ping"), req).status, 200);
  EXPECT_EQ(client.request("GET", sim.url("/slurm/v0.0.45/ping"), req).new_connections, 0);

  add_fault(sim, R"({"kind": "close_after_response", "path_prefix": "/slurm/v0.0.45/ping"})");
  HttpResult answered = client.request("GET", sim.url("/slurm/v0.0.45/ping"), req);
  EXPECT_EQ(answered.curl_code, 0);
  EXPECT_EQ(answered.status, 200);
  EXPECT_FALSE(answered.has_header("connection"));  // nothing announced the close
  HttpResult next = client.request("GET", sim.url("/slurm/v0.0.45/ping"), req);
  EXPECT_EQ(next.status, 200);
  EXPECT_EQ(next.new_connections, 1);
}

TEST(Faults, DelayOutlastsAClientTimeoutWhileTheSubmitTakesEffect) {
  SimOptions options = test_options();
  SimInstance sim(options);
  add_fault(sim, R"({"kind": "delay", "method": "POST", "ms": 1500})");
  HttpClient client;
  RequestOptions req;
  req.headers = auth_headers(options);
  req.body = simple_job();
  req.timeout_ms = 200;
  HttpResult r = client.request("POST", sim.url(kSubmit), req);
  EXPECT_EQ(r.curl_code, CURLE_OPERATION_TIMEDOUT);
  EXPECT_EQ(jobs_created(sim), 1);
  // A delay shorter than the timeout is just a late answer.
  add_fault(sim, R"({"kind": "delay", "ms": 50})");
  HttpResult late = slurm_call(sim, options, "GET", "/slurm/v0.0.45/job/1");
  EXPECT_EQ(late.curl_code, 0);
  EXPECT_EQ(late.status, 200);
}

TEST(Faults, CloseMidBodySendsHalfTheDeclaredBody) {
  SimOptions options = test_options();
  SimInstance sim(options);
  add_fault(sim, R"({"kind": "close_mid_body", "method": "POST"})");
  HttpResult r = slurm_call(sim, options, "POST", kSubmit, simple_job());
  EXPECT_EQ(r.curl_code, CURLE_PARTIAL_FILE);
  EXPECT_EQ(r.status, 200);
  EXPECT_GT(std::stoul(r.headers["content-length"]), r.body.size());
  EXPECT_FALSE(r.body.empty());
  EXPECT_EQ(jobs_created(sim), 1);
}

TEST(Faults, GarbageAnswers200WithABodyThatIsNotJson) {
  SimOptions options = test_options();
  SimInstance sim(options);
  add_fault(sim, R"({"kind": "garbage", "method": "POST"})");
  HttpResult r = slurm_call(sim, options, "POST", kSubmit, simple_job());
  EXPECT_EQ(r.curl_code, 0);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.headers["content-type"], "application/json");
  boost::system::error_code ec;
  (void)boost::json::parse(r.body, ec);
  EXPECT_TRUE(ec) << "the body parsed as JSON: " << r.body;
  EXPECT_EQ(jobs_created(sim), 1);
}

TEST(Faults, OutageInCloseModeDropsEverySlurmCallButKeepsTheControlApi) {
  SimOptions options = test_options();
  SimInstance sim(options);
  add_fault(sim, R"({"kind": "outage", "mode": "close", "seconds": 30})");
  EXPECT_EQ(slurm_call(sim, options, "GET", "/slurm/v0.0.45/ping").curl_code, CURLE_GOT_NOTHING);
  EXPECT_EQ(slurm_call(sim, options, "POST", kSubmit, simple_job()).curl_code, CURLE_GOT_NOTHING);
  EXPECT_EQ(jobs_created(sim), 0);  // nothing reached slurmctld
  control(sim, "POST", "/sim/clock/advance", R"({"seconds": 31})");
  EXPECT_EQ(slurm_call(sim, options, "GET", "/slurm/v0.0.45/ping").status, 200);
}

TEST(Faults, OutageInRefuseModeRefusesConnectionsUntilItEnds) {
  SimOptions options = test_options();
  SimInstance sim(options, /*with_control_listener=*/true);
  HttpClient control_client;
  RequestOptions outage;
  outage.body = R"({"kind": "outage", "mode": "refuse", "seconds": 60})";
  ASSERT_EQ(control_client.request("POST", sim.control_url("/sim/faults"), outage).status, 200);
  HttpResult refused = slurm_call(sim, options, "GET", "/slurm/v0.0.45/ping");
  EXPECT_EQ(refused.curl_code, CURLE_COULDNT_CONNECT);
  // The control listener stays up; moving the clock past the window reopens the port.
  RequestOptions advance;
  advance.body = R"({"seconds": 61})";
  ASSERT_EQ(control_client.request("POST", sim.control_url("/sim/clock/advance"), advance).status, 200);
  HttpResult back = slurm_call(sim, options, "GET", "/slurm/v0.0.45/ping");
  EXPECT_EQ(back.curl_code, 0);
  EXPECT_EQ(back.status, 200);
}

TEST(Faults, ACountLimitedOutageEndsAfterClosingThatManyRequests) {
  SimOptions options = test_options();
  SimInstance sim(options);
  add_fault(sim, R"({"kind": "outage", "count": 2})");
  auto rule = [&]() { return control(sim, "GET", "/sim/faults").at("rules"); };
  EXPECT_EQ(rule().at(0).at("remaining").to_number<int>(), 2);
  EXPECT_EQ(slurm_call(sim, options, "GET", "/slurm/v0.0.45/ping").curl_code, CURLE_GOT_NOTHING);
  EXPECT_EQ(rule().at(0).at("hits").to_number<int>(), 1);
  EXPECT_EQ(rule().at(0).at("remaining").to_number<int>(), 1);
  EXPECT_EQ(slurm_call(sim, options, "POST", kSubmit, simple_job()).curl_code, CURLE_GOT_NOTHING);
  EXPECT_TRUE(rule().as_array().empty()) << "a used-up outage is gone, like any other used-up rule";
  EXPECT_EQ(slurm_call(sim, options, "GET", "/slurm/v0.0.45/ping").status, 200);
  EXPECT_EQ(jobs_created(sim), 0);
  EXPECT_EQ(control(sim, "GET", "/sim/stats").at("faults_injected").at("outage").to_number<int>(), 2);
}

TEST(Faults, AnUnlimitedOutageCountsItsHits) {
  SimOptions options = test_options();
  SimInstance sim(options);
  add_fault(sim, R"({"kind": "outage", "seconds": 60})");
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(slurm_call(sim, options, "GET", "/slurm/v0.0.45/ping").curl_code, CURLE_GOT_NOTHING);
  json::value rule = control(sim, "GET", "/sim/faults").at("rules").at(0);
  EXPECT_EQ(rule.at("hits").to_number<int>(), 3);
  EXPECT_EQ(rule.at("remaining").to_number<int>(), -1);
}

TEST(Faults, ARefuseModeOutageTakesNoCount) {
  SimInstance sim(test_options(), /*with_control_listener=*/true);
  HttpResult r = control_raw(sim, "POST", "/sim/faults", R"({"kind": "outage", "mode": "refuse", "count": 1})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.json().at("error"),
            "\"count\" needs an outage in \"close\" mode: refused connections never reach the simulator; "
            "end a refuse-mode outage with \"seconds\" or DELETE /sim/faults/{id}");
}

TEST(Faults, RefuseWithoutAnEndNeedsTheControlListener) {
  SimInstance sim(test_options());
  HttpResult r = control_raw(sim, "POST", "/sim/faults", R"({"kind": "outage", "mode": "refuse"})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.json().at("error"), "a refuse-mode outage without \"seconds\" needs --control-listen, or nothing could end it");
}

TEST(Faults, SlowControllerDelaysSlurmCallsButNotAccountingOrControl) {
  SimOptions options = test_options();
  SimInstance sim(options);
  add_fault(sim, R"({"kind": "slow_controller", "ms": 1500})");
  HttpClient client;
  RequestOptions req;
  req.headers = auth_headers(options);
  req.timeout_ms = 300;
  EXPECT_EQ(client.request("GET", sim.url("/slurm/v0.0.45/ping"), req).curl_code, CURLE_OPERATION_TIMEDOUT);
  EXPECT_EQ(client.request("GET", sim.url("/slurmdb/v0.0.45/jobs"), req).status, 200);
  EXPECT_EQ(control(sim, "GET", "/sim/faults").at("rules").at(0).at("kind"), "slow_controller");
}

TEST(Faults, AccountingOutageFailsSlurmdbCallsTheWaySlurmrestdDoes) {
  SimOptions options = test_options();
  SimInstance sim(options);
  add_fault(sim, R"({"kind": "accounting_outage"})");
  HttpResult r = slurm_call(sim, options, "GET", "/slurmdb/v0.0.45/jobs?start_time=1");
  EXPECT_EQ(r.status, 502);  // http_status_from_error(): ESLURM_DB_CONNECTION -> BAD GATEWAY
  EXPECT_EQ(error_numbers(r.json()), (std::vector<std::int64_t>{7000}));
  EXPECT_EQ(r.json().at("errors").at(0).at("description"), "Failed to open slurmdbd connection");
  EXPECT_EQ(slurm_call(sim, options, "GET", "/slurm/v0.0.45/jobs").status, 200);

  SimOptions oldest = test_options(Release::r25_05_0);  // before http.c's table: default 500
  SimInstance sim2505(oldest);
  add_fault(sim2505, R"({"kind": "accounting_outage"})");
  EXPECT_EQ(slurm_call(sim2505, oldest, "GET", "/slurmdb/v0.0.43/jobs").status, 500);

  SimOptions older = test_options(Release::r25_11_7);
  SimInstance sim25(older);
  add_fault(sim25, R"({"kind": "accounting_outage", "seconds": 10})");
  EXPECT_EQ(slurm_call(sim25, older, "GET", "/slurmdb/v0.0.44/job/1").status, 502);
  control(sim25, "POST", "/sim/clock/advance", R"({"seconds": 11})");
  EXPECT_EQ(slurm_call(sim25, older, "GET", "/slurmdb/v0.0.44/job/1").status, 200);
}

TEST(Faults, CountAndMatcherDecideWhichRequestsAreHit) {
  SimOptions options = test_options();
  SimInstance sim(options);
  add_fault(sim, R"({"kind": "error_response", "method": "POST", "path_prefix": "/slurm/v0.0.45/job/submit", "count": 2})");
  EXPECT_EQ(slurm_call(sim, options, "GET", "/slurm/v0.0.45/jobs").status, 200);  // not matched
  EXPECT_EQ(slurm_call(sim, options, "POST", kSubmit, simple_job()).status, 500);
  EXPECT_EQ(slurm_call(sim, options, "POST", kSubmit, simple_job()).status, 500);
  EXPECT_EQ(slurm_call(sim, options, "POST", kSubmit, simple_job()).status, 200);
  json::value stats = control(sim, "GET", "/sim/stats");
  EXPECT_EQ(stats.at("faults_injected").at("error_response").to_number<int>(), 2);
  EXPECT_EQ(stats.at("submits_received").to_number<int>(), 3);
}

std::vector<long> random_statuses(std::uint64_t seed) {
  SimOptions options = test_options();
  SimInstance sim(options);
  control(sim, "POST", "/sim/faults/random",
          R"({"seed": )" + std::to_string(seed) + R"(, "probability": 0.4, "kinds": ["error_response", "drop_response"]})");
  std::vector<long> out;
  for (int i = 0; i < 40; ++i) {
    HttpResult r = slurm_call(sim, options, "GET", "/slurm/v0.0.45/ping");
    out.push_back(r.curl_code ? -r.curl_code : r.status);
  }
  return out;
}

TEST(Faults, RandomModeIsRepeatableFromItsSeed) {
  std::vector<long> first = random_statuses(7);
  EXPECT_EQ(random_statuses(7), first);
  EXPECT_NE(random_statuses(8), first);
  long faulted = 0;
  for (long s : first) faulted += s != 200;
  EXPECT_GT(faulted, 5);
  EXPECT_LT(faulted, 30);
}

TEST(Faults, BadFaultRequestsAreRefusedWithTheFix) {
  SimInstance sim(test_options());
  HttpResult r = control_raw(sim, "POST", "/sim/faults", R"({"kind": "explode"})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.json().at("error"),
            "\"kind\": unknown fault \"explode\"; use drop_response, error_response, close_after_response, delay, "
            "close_mid_body, garbage, outage, slow_controller, accounting_outage or accounting_lag");
  EXPECT_EQ(control_raw(sim, "POST", "/sim/faults", R"({"kind": "delay"})").json().at("error"),
            "\"ms\" (a positive delay in milliseconds) is required for delay");
  EXPECT_EQ(control_raw(sim, "POST", "/sim/faults", R"({"kind": "error_response", "status": 200})").json().at("error"),
            "\"status\" must be an HTTP error status (500, 502, 504...)");
}

}  // namespace
}  // namespace tpslurm::sim::test
