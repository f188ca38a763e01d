// The metered transport and token source: every path the client sends folds to a bounded
// template, and real HTTP exchanges (CurlTransport against a loopback server) are counted
// with their bytes, errors and times, read back from the metrics' text as a scraper would.
#include <gtest/gtest.h>

#include <array>
#include <fstream>

#include "slurm/curl_transport.h"
#include "slurm/dialect.h"
#include "slurm/jwt.h"
#include "slurm/metered_token_source.h"
#include "slurm/metered_transport.h"
#include "support/exposition.h"
#include "support/temp_dir.h"
#include "test_http_server.h"

namespace tpslurm::slurm {
namespace {

using testing::Action;
using testing::ReceivedRequest;
using testing::TestHttpServer;
using tpslurm::testing::Exposition;

Exposition scrape(const metrics::Metrics& metrics) {
  auto text = metrics.render({});
  EXPECT_TRUE(text.ok());
  return text.ok() ? tpslurm::testing::parse_exposition(*text) : Exposition{};
}

TEST(EndpointLabelTest, EveryPathOfEveryDialectFoldsToItsTemplate) {
  const std::array<std::uint32_t, 3> ids{101, 102, 103};
  for (auto version : supported_dialects()) {
    SCOPED_TRACE(std::string(version));
    const auto d = make_dialect(version);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(endpoint_label(d->submit_path()), "job/submit");
    EXPECT_EQ(endpoint_label(d->job_path("4242")), "job/{id}");
    EXPECT_EQ(endpoint_label(d->job_path("sEE9M8P5JKZ200")), "job/{id}");
    EXPECT_EQ(endpoint_label(d->update_path(4242)), "job/{id}");
    EXPECT_EQ(endpoint_label(d->cancel_path("4242", "")), "job/{id}");
    EXPECT_EQ(endpoint_label(d->cancel_path("sEE9M8P5JKZ200", "SIGUSR1")), "job/{id}");
    EXPECT_EQ(endpoint_label(d->jobs_path(std::nullopt)), "jobs");
    EXPECT_EQ(endpoint_label(d->jobs_path(1796040000)), "jobs");
    EXPECT_EQ(endpoint_label(d->jobs_state_path(ids)), "jobs/state");
    EXPECT_EQ(endpoint_label(d->jobs_state_all_path()), "jobs/state");
    EXPECT_EQ(endpoint_label(d->ping_path()), "ping");
    EXPECT_EQ(endpoint_label(d->partitions_path()), "partitions");
    EXPECT_EQ(endpoint_label(d->diag_path()), "diag");
    EXPECT_EQ(endpoint_label(d->db_jobs_path("tp-a-j1-1,tp-a-j2-1", 1796040000)), "slurmdb/jobs");
    const std::string preflight = endpoint_label(d->preflight_path());
    EXPECT_TRUE(preflight == "ping" || preflight == "jobs/state" || preflight == "diag") << preflight;
  }
}

TEST(EndpointLabelTest, AnythingElseIsOtherAndNeverTheRawTarget) {
  for (std::string_view target : {"/openapi/v3", "/slurm/v0.0.45/job/1/extra", "/slurm/v0.0.45/job/",
                                  "/slurm/v0.0.45/nodes", "/slurm/latest/jobs", "/slurm/v0.0.45", "/etc/passwd", "",
                                  "jobs", "/slurmdb/v0.0.45/job/submit", "/slurm/v0.0.45/tp-a-j1-1"}) {
    EXPECT_EQ(endpoint_label(target), "other") << target;
  }
  EXPECT_EQ(endpoint_label("/slurmdb/v0.0.44/job/77"), "slurmdb/job/{id}");
  EXPECT_EQ(endpoint_label("/slurm/v0.0.45/jobs#x"), "jobs");
}

class MeteredTransportTest : public ::testing::Test {
 protected:
  SystemClock m_clock;
};

std::unique_ptr<CurlTransport> curl_to(const std::string& url) {
  CurlTransportOptions options;
  options.url = url;
  options.connect_timeout = std::chrono::milliseconds(2000);
  options.total_timeout = std::chrono::seconds(10);
  auto transport = CurlTransport::create(options);
  return transport.ok() ? std::move(transport).value() : nullptr;
}

HttpRequest request(HttpMethod method, std::string target, std::string body = {}) {
  HttpRequest r;
  r.method = method;
  r.target = std::move(target);
  r.body = std::move(body);
  if (method == HttpMethod::post) r.reuse = Reuse::forbidden;
  return r;
}

TEST_F(MeteredTransportTest, RealExchangesAreCountedWithTheirBytesAndErrorsAndPassedOnUnchanged) {
  const std::string submit_answer = R"({"job_id": 4242, "errors": [], "warnings": []})";
  auto server = TestHttpServer::start_tcp([&](const ReceivedRequest& r) {
    if (r.target.find("/job/submit") != std::string::npos) return Action::reply(200, submit_answer);
    if (r.method == "DELETE") return Action::reply(500, R"({"errors": [{"error_number": 2017}]})");
    if (r.target.find("/ping") != std::string::npos) return Action::close_without_reply();
    return Action::reply(404, "not here", "text/plain");
  });
  ASSERT_NE(server, nullptr);
  auto curl = curl_to(server->url());
  ASSERT_NE(curl, nullptr);
  metrics::Metrics metrics(m_clock);
  MeteredTransport metered(*curl, metrics);
  EXPECT_EQ(metered.endpoint(), curl->endpoint());

  const std::string body = R"({"job": {"name": "tp-a-j1-1"}})";
  const HttpExchange submitted = metered.perform(request(HttpMethod::post, "/slurm/v0.0.45/job/submit", body));
  ASSERT_EQ(submitted.delivery, Delivery::answered);
  EXPECT_EQ(submitted.response.body, submit_answer);
  metered.perform(request(HttpMethod::del, "/slurm/v0.0.45/job/sEE9M8P5JKZ200?signal=KILL"));
  metered.perform(request(HttpMethod::get, "/slurm/v0.0.45/job/4242"));
  metered.perform(request(HttpMethod::get, "/slurm/v0.0.45/job/4243"));
  // On a fresh connection: libcurl would re-send a GET on a reused one that closed unanswered.
  HttpRequest ping = request(HttpMethod::get, "/slurm/v0.0.45/ping");
  ping.reuse = Reuse::forbidden;
  const HttpExchange lost = metered.perform(ping);
  EXPECT_EQ(lost.delivery, Delivery::uncertain);
  ASSERT_EQ(server->requests().size(), 5u) << "each exchange went out once";

  const Exposition e = scrape(metrics);
  EXPECT_EQ(e.value("tuneplane_slurm_rest_calls_total", {{"endpoint", "job/submit"}, {"method", "POST"}}), 1);
  EXPECT_EQ(e.value("tuneplane_slurm_rest_calls_total", {{"endpoint", "job/{id}"}, {"method", "GET"}}), 2);
  EXPECT_EQ(e.value("tuneplane_slurm_rest_calls_total", {{"endpoint", "job/{id}"}, {"method", "DELETE"}}), 1);
  EXPECT_EQ(e.value("tuneplane_slurm_rest_sent_bytes_total", {{"endpoint", "job/submit"}}), body.size());
  EXPECT_EQ(e.value("tuneplane_slurm_rest_received_bytes_total", {{"endpoint", "job/submit"}}), submit_answer.size());
  EXPECT_EQ(e.value("tuneplane_slurm_rest_received_bytes_total", {{"endpoint", "job/{id}"}}),
            2 * std::string("not here").size() + std::string(R"({"errors": [{"error_number": 2017}]})").size());
  EXPECT_EQ(e.value("tuneplane_slurm_rest_errors_total",
                    {{"endpoint", "job/{id}"}, {"method", "GET"}, {"error", "http_4xx"}}),
            2);
  EXPECT_EQ(e.value("tuneplane_slurm_rest_errors_total",
                    {{"endpoint", "job/{id}"}, {"method", "DELETE"}, {"error", "http_5xx"}}),
            1);
  EXPECT_EQ(
      e.value("tuneplane_slurm_rest_errors_total", {{"endpoint", "ping"}, {"method", "GET"}, {"error", "uncertain"}}),
      1);
  EXPECT_FALSE(e.value("tuneplane_slurm_rest_errors_total",
                       {{"endpoint", "job/submit"}, {"method", "POST"}, {"error", "http_4xx"}}));
  EXPECT_EQ(e.value("tuneplane_slurm_rest_call_duration_seconds_count", {{"endpoint", "job/{id}"}}), 3);
  for (const auto& sample : e.samples) {
    for (const auto& [name, value] : sample.labels) {
      EXPECT_EQ(value.find("4242"), std::string::npos) << sample.name << " carries a job id";
      EXPECT_EQ(value.find("sEE9"), std::string::npos) << sample.name << " carries a SLUID";
    }
  }
}

// A listing read as it arrives is counted with every byte its reader took, not what the
// response kept of it.
TEST_F(MeteredTransportTest, AStreamedListingCountsItsWholeBody) {
  const std::string listing = R"({"jobs": [)" + std::string(3 * kKeptBodyBytes, ' ') + "]}";
  auto server = TestHttpServer::start_tcp([&](const ReceivedRequest&) { return Action::reply(200, listing); });
  ASSERT_NE(server, nullptr);
  auto curl = curl_to(server->url());
  ASSERT_NE(curl, nullptr);
  metrics::Metrics metrics(m_clock);
  MeteredTransport metered(*curl, metrics);
  struct Discard final : BodyReader {
    void take(std::string_view) override {}
  } reader;
  HttpRequest listed = request(HttpMethod::get, "/slurm/v0.0.45/jobs");
  listed.reader = &reader;

  const HttpExchange exchange = metered.perform(listed);

  ASSERT_TRUE(exchange.response.streamed);
  EXPECT_EQ(scrape(metrics).value("tuneplane_slurm_rest_received_bytes_total", {{"endpoint", "jobs"}}), listing.size());
}

TEST_F(MeteredTransportTest, AConnectionRefusedIsCountedNotSentWithNoBytes) {
  auto curl = curl_to("http://127.0.0.1:" + std::to_string(testing::unused_port()));
  ASSERT_NE(curl, nullptr);
  metrics::Metrics metrics(m_clock);
  MeteredTransport metered(*curl, metrics);
  const HttpExchange refused = metered.perform(request(HttpMethod::post, "/slurm/v0.0.45/job/submit", "{}"));
  EXPECT_EQ(refused.delivery, Delivery::not_sent);
  const Exposition e = scrape(metrics);
  EXPECT_EQ(e.value("tuneplane_slurm_rest_errors_total",
                    {{"endpoint", "job/submit"}, {"method", "POST"}, {"error", "not_sent"}}),
            1);
  EXPECT_EQ(e.value("tuneplane_slurm_rest_sent_bytes_total", {{"endpoint", "job/submit"}}), 0);
}

TEST(MeteredTokenSourceTest, TheExpiryOfEachTokenHandedOutIsTheGaugeAndAFailureKeepsIt) {
  tpslurm::testing::TempDir dir;
  const TimePoint start = from_unix_seconds(1796040000);
  ManualClock clock(start);
  const std::string path = dir.file("jwt");
  auto write = [&](const std::string& content) {
    std::ofstream(path + ".new", std::ios::binary | std::ios::trunc) << content;
    std::rename((path + ".new").c_str(), path.c_str());
  };
  const std::string key = "0123456789abcdef0123456789abcdef";
  write(mint_hs256(key, "alice", start, std::chrono::seconds(600)) + "\n");
  metrics::Metrics metrics(clock);
  MeteredTokenSource source(std::make_unique<FileTokenSource>("alice", path, clock), metrics);
  EXPECT_EQ(source.describe(), "token file " + path);
  const char* gauge = "tuneplane_slurm_token_expiry_timestamp_seconds";
  EXPECT_FALSE(scrape(metrics).value(gauge)) << "unknown before the first read";

  auto first = source.credentials();
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(scrape(metrics).value(gauge), 1796040000 + 600);

  write(mint_hs256(key, "alice", start, std::chrono::seconds(900)) + "\n");
  ASSERT_TRUE(source.credentials().ok());
  EXPECT_EQ(scrape(metrics).value(gauge), 1796040000 + 900) << "a rotated token's expiry";

  clock.advance(std::chrono::seconds(901));
  EXPECT_FALSE(source.credentials().ok());
  EXPECT_EQ(scrape(metrics).value(gauge), 1796040000 + 900) << "the expired token still shows when it expired";
  const auto text = metrics.render({});
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text->find(first->token), std::string::npos);
}

}  // namespace
}  // namespace tpslurm::slurm
