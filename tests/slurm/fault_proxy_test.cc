// tools/fault-proxy between the real client (RestClient over libcurl) and a slurmrestd-sim
// process: the proxy loses, repeats, delays or replaces answers the upstream really gave, and
// the simulator's counters prove what happened on the server side. The same faults can be put
// in front of a real slurmrestd; here the simulator stands in for it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "fault_proxy_process.h"
#include "sim_client_support.h"

namespace tpslurm::slurm {
namespace {

using testing::FaultProxyProcess;
using testing::sim_description;
using testing::SimProcess;

constexpr char kSubmit[] = "POST /slurm/v0.0.45/job/submit";

std::unique_ptr<CurlTransport> transport_to(const std::string& url) {
  CurlTransportOptions options;
  options.url = url;
  options.connect_timeout = std::chrono::milliseconds(1000);
  options.total_timeout = std::chrono::milliseconds(5000);
  auto transport = CurlTransport::create(options);
  EXPECT_TRUE(transport.ok()) << transport.error().message();
  return transport.ok() ? std::move(transport).value() : nullptr;
}

class FaultProxyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto sim = SimProcess::start({"--manual-clock", "--timing", "manual"});
    ASSERT_TRUE(sim.ok()) << sim.error().message();
    m_sim = std::move(sim).value();
    auto proxy = FaultProxyProcess::start(m_sim->url());
    ASSERT_TRUE(proxy.ok()) << proxy.error().message();
    m_proxy = std::move(proxy).value();
    m_clock.set(m_sim->now());
    m_tokens = m_sim->tokens();
    m_transport = transport_to(m_proxy->url());
    ASSERT_NE(m_transport, nullptr);
    RestClientOptions options;
    options.clock = &m_clock;
    auto client = RestClient::create(*m_transport, *m_tokens, "v0.0.45", options);
    ASSERT_TRUE(client.ok()) << client.error().message();
    m_client = std::move(client).value();
  }

  void fault(const std::string& rule) {
    auto id = m_proxy->add_fault(rule);
    ASSERT_TRUE(id.ok()) << id.error().message();
  }

  SubmitResult submit(const std::string& name) { return m_client->submit(sim_description(name)); }

  // The jobs the simulator holds with `name`'s tag, found through the proxy.
  std::size_t jobs_tagged(const std::string& name) {
    const SearchResult found = m_client->find_jobs_by_tag(sim_description(name).tag, m_clock.now());
    EXPECT_TRUE(found.complete()) << found.message;
    return found.matches.size();
  }

  // One raw call with the client's credentials, to compare what the proxy relays with what the
  // simulator says directly.
  HttpExchange raw(Transport& transport, HttpMethod method, const std::string& target) {
    auto credentials = m_tokens->credentials();
    EXPECT_TRUE(credentials.ok());
    HttpRequest request;
    request.method = method;
    request.target = target;
    request.headers = {{"X-SLURM-USER-NAME", credentials->user}, {"X-SLURM-USER-TOKEN", credentials->token}};
    return transport.perform(request);
  }

  std::string where() const { return " (" + m_proxy->url() + ")"; }

  ManualClock m_clock{from_unix_seconds(0)};
  std::unique_ptr<SimProcess> m_sim;
  std::unique_ptr<FaultProxyProcess> m_proxy;
  std::unique_ptr<TokenSource> m_tokens;
  std::unique_ptr<CurlTransport> m_transport;
  std::unique_ptr<RestClient> m_client;
};

TEST_F(FaultProxyTest, LostAnswerAfterTheJobWasCreatedIsUncertain) {
  fault(R"({"kind": "lose_answer", "method": "POST", "path_suffix": "/job/submit"})");
  const SubmitResult result = submit("tp-proxy-lost");
  EXPECT_EQ(result.outcome, Outcome::uncertain);
  EXPECT_EQ(result.message,
            "POST /slurm/v0.0.45/job/submit: may have been received: connection closed with no answer" + where());
  EXPECT_FALSE(result.job_id);
  EXPECT_EQ(m_sim->stat("submits_received"), 1);
  EXPECT_EQ(m_sim->stat("jobs_created"), 1) << "the upstream did the work";
  EXPECT_EQ(jobs_tagged("tp-proxy-lost"), 1u);
  EXPECT_EQ(m_proxy->stat("answers_lost"), 1);
  EXPECT_EQ(m_proxy->route_count(kSubmit), 1);
}

TEST_F(FaultProxyTest, ResentSubmitCreatesTwoJobsAndTheClientGetsTheSecondReceipt) {
  fault(R"({"kind": "resend", "method": "POST", "path_suffix": "/job/submit"})");
  const SubmitResult result = submit("tp-proxy-resent");
  ASSERT_EQ(result.outcome, Outcome::ok) << result.message;
  EXPECT_EQ(result.job_id, std::optional<std::uint32_t>(2)) << "the second job's receipt";
  EXPECT_EQ(m_sim->stat("submits_received"), 2);
  EXPECT_EQ(m_sim->stat("jobs_created"), 2);
  EXPECT_EQ(jobs_tagged("tp-proxy-resent"), 2u) << "a duplicate the client was never told about";
  EXPECT_EQ(m_proxy->stat("resent"), 1);
  EXPECT_EQ(m_proxy->route_count(kSubmit), 1) << "the client sent it once";
}

TEST_F(FaultProxyTest, ResendCanRelayTheFirstAnswer) {
  fault(R"({"kind": "resend", "relay": "first", "method": "POST", "path_suffix": "/job/submit"})");
  const SubmitResult result = submit("tp-proxy-resent-first");
  ASSERT_EQ(result.outcome, Outcome::ok) << result.message;
  EXPECT_EQ(result.job_id, std::optional<std::uint32_t>(1));
  EXPECT_EQ(m_sim->stat("jobs_created"), 2);
}

TEST_F(FaultProxyTest, DelayedAnswerDoesNotHoldBackAnotherConnection) {
  constexpr auto kDelay = std::chrono::milliseconds(1500);
  fault(R"({"kind": "delay", "ms": 1500, "method": "POST", "path_suffix": "/job/submit"})");
  std::atomic<bool> submitted{false};
  SubmitResult delayed;
  std::chrono::steady_clock::duration delayed_took{};
  std::thread submitter([&] {
    const auto started = std::chrono::steady_clock::now();
    delayed = submit("tp-proxy-delayed");
    delayed_took = std::chrono::steady_clock::now() - started;
    submitted = true;
  });
  // The submit is held once the proxy applied the rule to it.
  const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (m_proxy->stat("delayed") < 1 && std::chrono::steady_clock::now() < limit) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const auto started = std::chrono::steady_clock::now();
  const PingResult ping = m_client->ping();
  const auto ping_took = std::chrono::steady_clock::now() - started;
  EXPECT_FALSE(submitted) << "the ping came back while the submit's answer was still held";
  submitter.join();
  EXPECT_EQ(ping.outcome, Outcome::ok) << ping.message;
  EXPECT_LT(ping_took, kDelay / 2);
  ASSERT_EQ(delayed.outcome, Outcome::ok) << delayed.message;
  EXPECT_EQ(delayed.job_id, std::optional<std::uint32_t>(1));
  EXPECT_GE(delayed_took, kDelay);
  EXPECT_EQ(m_sim->stat("jobs_created"), 1);
}

TEST_F(FaultProxyTest, GatewayErrorAfterTheJobWasCreatedIsUncertain) {
  fault(R"({"kind": "error_status", "status": 502, "method": "POST", "path_suffix": "/job/submit"})");
  const SubmitResult result = submit("tp-proxy-502");
  EXPECT_EQ(result.outcome, Outcome::uncertain);
  EXPECT_EQ(result.http_status, 502);
  EXPECT_FALSE(result.job_id);
  EXPECT_EQ(result.message,
            "POST /slurm/v0.0.45/job/submit: HTTP 502 with a body that is not the expected JSON and no job_id");
  EXPECT_EQ(m_sim->stat("jobs_created"), 1);
  EXPECT_EQ(jobs_tagged("tp-proxy-502"), 1u);
  EXPECT_EQ(m_proxy->stat("replaced"), 1);
}

// Without rules the client cannot tell the proxy from the server: the same answers to reads,
// to a 404 (which slurmrestd sends with "Connection: Close"), and a cancel that takes effect.
TEST_F(FaultProxyTest, PassesReadsAndCancelsThroughUnchanged) {
  const SubmitResult made = submit("tp-proxy-plain");
  ASSERT_EQ(made.outcome, Outcome::ok) << made.message;
  ASSERT_EQ(made.job_id, std::optional<std::uint32_t>(1));
  auto direct = transport_to(m_sim->url());
  ASSERT_NE(direct, nullptr);
  for (const std::string target :
       {"/slurm/v0.0.45/job/1", "/slurm/v0.0.45/job/77", "/slurm/v0.0.45/jobs?update_time=1"}) {
    const HttpExchange via_proxy = raw(*m_transport, HttpMethod::get, target);
    const HttpExchange straight = raw(*direct, HttpMethod::get, target);
    ASSERT_EQ(via_proxy.delivery, Delivery::answered) << target << ": " << via_proxy.detail;
    EXPECT_EQ(via_proxy.response.status, straight.response.status) << target;
    EXPECT_EQ(via_proxy.response.content_type, straight.response.content_type) << target;
    // meta.client.source names the simulator's socket, which differs per connection.
    auto proxied_body = boost::json::parse(via_proxy.response.body);
    auto direct_body = boost::json::parse(straight.response.body);
    proxied_body.at("meta").at("client").as_object().erase("source");
    direct_body.at("meta").at("client").as_object().erase("source");
    EXPECT_EQ(proxied_body, direct_body) << target;
  }
  EXPECT_EQ(m_client->get_job({77, ""}).outcome, Outcome::not_found);
  const CancelResult cancelled = m_client->cancel({1, ""});
  EXPECT_EQ(cancelled.outcome, Outcome::ok) << cancelled.message;
  const JobsResult after = m_client->get_job({1, ""});
  ASSERT_EQ(after.outcome, Outcome::ok) << after.message;
  ASSERT_EQ(after.jobs.size(), 1u);
  EXPECT_EQ(after.jobs[0].state.base, model::SlurmBaseState::cancelled);
  EXPECT_EQ(m_proxy->route_count("DELETE /slurm/v0.0.45/job/1"), 1);
  EXPECT_EQ(m_proxy->route_count("GET /slurm/v0.0.45/jobs"), 1) << "routes are counted without the query";
  EXPECT_EQ(m_proxy->stat("requests"), m_proxy->stat("forwarded"));
  EXPECT_EQ(m_proxy->stat("upstream_failures"), 0);
}

TEST_F(FaultProxyTest, RulesMatchMethodAndPathSuffixAndCountDown) {
  fault(R"({"kind": "lose_answer", "method": "POST", "path_suffix": "/ping"})");
  fault(R"({"kind": "error_status", "status": 503, "method": "GET", "path_suffix": "/ping", "count": 2})");
  EXPECT_EQ(m_client->ping().http_status, 503);
  auto listed = m_proxy->control(HttpMethod::get, "/proxy/faults");
  ASSERT_TRUE(listed.ok()) << listed.error().message();
  EXPECT_EQ(
      boost::json::serialize(*listed),
      R"({"faults":[{"id":1,"kind":"lose_answer","method":"POST","path_suffix":"/ping","remaining":1,"hits":0},)"
      R"({"id":2,"kind":"error_status","method":"GET","path_suffix":"/ping","remaining":1,"hits":1,"status":503}]})");
  EXPECT_EQ(m_client->ping().http_status, 503);
  const PingResult third = m_client->ping();
  EXPECT_EQ(third.outcome, Outcome::ok) << "the rule was used up: " << third.message;
  listed = m_proxy->control(HttpMethod::get, "/proxy/faults");
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->at("faults").as_array().size(), 1u) << "only the POST rule is left";

  fault(R"({"kind": "error_status", "status": 500, "count": -1})");
  EXPECT_EQ(m_client->ping().http_status, 500);
  EXPECT_EQ(m_client->ping().http_status, 500);
  listed = m_proxy->control(HttpMethod::get, "/proxy/faults");
  ASSERT_TRUE(listed.ok());
  const auto& unlimited = listed->at("faults").as_array().at(1);
  EXPECT_EQ(unlimited.at("hits"), 2);
  EXPECT_EQ(unlimited.at("remaining"), -1);
  auto cleared = m_proxy->control(HttpMethod::del, "/proxy/faults");
  ASSERT_TRUE(cleared.ok());
  EXPECT_EQ(cleared->at("cleared"), 2);
  EXPECT_EQ(m_client->ping().outcome, Outcome::ok);

  auto stats = m_proxy->control(HttpMethod::get, "/proxy/stats");
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(boost::json::serialize(*stats),
            R"({"requests":6,"forwarded":6,"answers_lost":0,"resent":0,"delayed":0,"replaced":4,)"
            R"("upstream_failures":0,"by_route":{"GET /slurm/v0.0.45/ping":6}})");
  EXPECT_EQ(m_sim->route_count("GET /slurm/v0.0.45/ping"), 6) << "every request reached the upstream";
}

TEST_F(FaultProxyTest, BadControlInputIsRefusedNamingTheField) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {R"({"method": "POST"})", R"x({"error":"kind: required (lose_answer, resend, delay or error_status)"})x"},
      {R"({"kind": "drop"})", R"x({"error":"kind: expected lose_answer, resend, delay or error_status"})x"},
      {R"({"kind": "delay"})", R"x({"error":"ms: required for delay, a non-negative integer (milliseconds)"})x"},
      {R"({"kind": "error_status", "status": 700})",
       R"x({"error":"status: required for error_status, an HTTP status from 100 to 599"})x"},
      {R"({"kind": "lose_answer", "status": 502})", R"x({"error":"status: only for kind error_status"})x"},
      {R"({"kind": "resend", "relay": "third"})", R"x({"error":"relay: expected \"first\" or \"second\""})x"},
      {R"({"kind": "lose_answer", "count": 0})",
       R"x({"error":"count: expected a positive integer, or -1 for unlimited"})x"},
      {R"({"kind": "lose_answer", "path_suffix": 3})",
       R"x({"error":"path_suffix: expected a string such as \"/job/submit\""})x"},
      {R"({"kind": "lose_answer", "path_prefix": "/slurm"})",
       R"x({"error":"unknown field \"path_prefix\"; the fields are kind, method, path_suffix, count, ms, status and relay"})x"},
      {"{", R"x({"error":"body: not JSON (incomplete JSON)"})x"},
  };
  for (const auto& [body, error] : cases) {
    auto answer = m_proxy->control(HttpMethod::post, "/proxy/faults", body);
    ASSERT_FALSE(answer.ok()) << body;
    EXPECT_EQ(answer.error().message(), "POST /proxy/faults: HTTP 400 " + error);
  }
  auto listed = m_proxy->control(HttpMethod::get, "/proxy/faults");
  ASSERT_TRUE(listed.ok());
  EXPECT_TRUE(listed->at("faults").as_array().empty());
  auto unknown = m_proxy->control(HttpMethod::get, "/proxy/rules");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(
      unknown.error().message(),
      R"(GET /proxy/rules: HTTP 404 {"error":"no control route GET /proxy/rules; the routes are /proxy/faults and /proxy/stats"})");
}

TEST_F(FaultProxyTest, StopsCleanlyOnSigtermWithoutPrintingTheToken) {
  ASSERT_EQ(submit("tp-proxy-quiet").outcome, Outcome::ok);
  auto credentials = m_tokens->credentials();
  ASSERT_TRUE(credentials.ok());
  EXPECT_EQ(m_proxy->stop(), 0);
  const std::string output = m_proxy->output();
  EXPECT_EQ(output.find(credentials->token), std::string::npos) << output;
  EXPECT_EQ(output.rfind("listening on 127.0.0.1:", 0), 0u) << output;
}

TEST(FaultProxyStartTest, UnreachableUpstreamGetsAGatewayAnswer) {
  auto proxy = FaultProxyProcess::start("http://127.0.0.1:1");
  ASSERT_TRUE(proxy.ok()) << proxy.error().message();
  auto transport = transport_to((*proxy)->url());
  ASSERT_NE(transport, nullptr);
  HttpRequest request;
  request.target = "/slurm/v0.0.45/ping";
  const HttpExchange exchange = transport->perform(request);
  ASSERT_EQ(exchange.delivery, Delivery::answered) << exchange.detail;
  EXPECT_EQ(exchange.response.status, 502);
  EXPECT_EQ(exchange.response.content_type, "text/html");
  EXPECT_NE(exchange.response.body.find("upstream http://127.0.0.1:1: connect: Connection refused"), std::string::npos)
      << exchange.response.body;
  EXPECT_EQ((*proxy)->stat("upstream_failures"), 1);
}

TEST(FaultProxyStartTest, AProxyThatCannotStartSaysWhy) {
  auto proxy = FaultProxyProcess::start("https://127.0.0.1:6820");
  ASSERT_FALSE(proxy.ok());
  EXPECT_NE(
      proxy.error().message().find(
          R"(tp-fault-proxy: --upstream: upstream "https://127.0.0.1:6820": expected http://HOST:PORT (only plain HTTP is proxied))"),
      std::string::npos)
      << proxy.error().message();
}

}  // namespace
}  // namespace tpslurm::slurm
