// CurlTransport against a real HTTP server on loopback: connection handling, headers, proxies,
// unix sockets, and the guarantee that a submit is never sent twice.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>

#include "slurm/curl_transport.h"
#include "test_http_server.h"

namespace tpslurm::slurm {
namespace {

using testing::Action;
using testing::ReceivedRequest;
using testing::TestHttpServer;

std::unique_ptr<CurlTransport> transport_for(const std::string& url,
                                             std::chrono::milliseconds total = std::chrono::seconds(10)) {
  CurlTransportOptions options;
  options.url = url;
  options.connect_timeout = std::chrono::milliseconds(2000);
  options.total_timeout = total;
  auto transport = CurlTransport::create(options);
  if (!transport.ok()) return nullptr;
  return std::move(transport).value();
}

int count_posts(const std::vector<ReceivedRequest>& requests) {
  int posts = 0;
  for (const auto& request : requests) posts += request.method == "POST" ? 1 : 0;
  return posts;
}

HttpRequest get(std::string target) {
  HttpRequest request;
  request.target = std::move(target);
  return request;
}

HttpRequest post(std::string target, Reuse reuse) {
  HttpRequest request;
  request.method = HttpMethod::post;
  request.target = std::move(target);
  request.body = R"({"job":{}})";
  request.reuse = reuse;
  return request;
}

// Records what a BodyReader is given, piece by piece.
struct RecordingReader final : BodyReader {
  void take(std::string_view piece) override { taken.append(piece); }
  std::string taken;
};

// The server answers GETs with keep-alive and, for every POST, "creates the job" (records the
// request) and then closes the connection without answering.
Action create_then_close(const ReceivedRequest& request) {
  if (request.method == "POST") return Action::close_without_reply();
  return Action::reply(200, "{}");
}

TEST(CurlTransportTest, SubmitOnAKeptAliveConnectionThatClosesIsSentExactlyOnce) {
  auto server = TestHttpServer::start_tcp(create_then_close);
  ASSERT_NE(server, nullptr) << "the test server could not start";
  auto transport = transport_for(server->url());
  ASSERT_NE(transport, nullptr);

  ASSERT_EQ(transport->perform(get("/slurm/v0.0.45/ping")).delivery, Delivery::answered);
  const HttpExchange submit = transport->perform(post("/slurm/v0.0.45/job/submit", Reuse::forbidden));

  EXPECT_EQ(count_posts(server->requests()), 1);
  EXPECT_EQ(submit.delivery, Delivery::uncertain);
  EXPECT_EQ(submit.fault, TransportFault::empty_reply);
  // The POST went on a connection of its own, not the kept-alive one of the GET.
  const auto requests = server->requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_NE(requests[0].connection, requests[1].connection);
}

// The hazard the test above guards against: libcurl itself re-sends a request that a reused
// connection answered with nothing. If this stops being true, the guard is still right.
TEST(CurlTransportTest, ReusedConnectionThatClosesMakesLibcurlResendThePost) {
  auto server = TestHttpServer::start_tcp(create_then_close);
  ASSERT_NE(server, nullptr) << "the test server could not start";
  auto transport = transport_for(server->url());
  ASSERT_NE(transport, nullptr);

  ASSERT_EQ(transport->perform(get("/slurm/v0.0.45/ping")).delivery, Delivery::answered);
  transport->perform(post("/slurm/v0.0.45/job/submit", Reuse::allowed));

  EXPECT_EQ(count_posts(server->requests()), 2);
}

TEST(CurlTransportTest, ReadsReuseOneKeptAliveConnection) {
  auto server = TestHttpServer::start_tcp([](const ReceivedRequest&) { return Action::reply(200, "{}"); });
  ASSERT_NE(server, nullptr) << "the test server could not start";
  auto transport = transport_for(server->url());
  ASSERT_NE(transport, nullptr);

  EXPECT_EQ(transport->perform(get("/a")).delivery, Delivery::answered);
  const HttpExchange second = transport->perform(get("/b"));

  EXPECT_TRUE(second.connection_reused);
  EXPECT_EQ(server->connections(), 1);
}

TEST(CurlTransportTest, SendsSlurmHeadersJsonAndAnEmptyExpect) {
  auto server = TestHttpServer::start_tcp([](const ReceivedRequest&) { return Action::reply(200, "{}"); });
  ASSERT_NE(server, nullptr) << "the test server could not start";
  auto transport = transport_for(server->url());
  ASSERT_NE(transport, nullptr);
  HttpRequest request = post("/slurm/v0.0.45/job/submit", Reuse::forbidden);
  request.body = std::string(4096, ' ') + "{}";  // large enough that libcurl would otherwise send Expect
  request.headers = {{"X-SLURM-USER-NAME", "alice"}, {"X-SLURM-USER-TOKEN", "tok.en.value"}};

  ASSERT_EQ(transport->perform(request).delivery, Delivery::answered);

  const auto seen = server->requests().at(0);
  EXPECT_EQ(seen.headers.at("x-slurm-user-name"), "alice");
  EXPECT_EQ(seen.headers.at("x-slurm-user-token"), "tok.en.value");
  EXPECT_EQ(seen.headers.at("content-type"), "application/json");
  EXPECT_EQ(seen.headers.count("expect"), 0u);
  EXPECT_EQ(seen.body, request.body);
}

TEST(CurlTransportTest, IgnoresProxiesFromTheEnvironment) {
  auto server = TestHttpServer::start_tcp([](const ReceivedRequest&) { return Action::reply(200, "{}"); });
  ASSERT_NE(server, nullptr) << "the test server could not start";
  const std::string bogus = "http://127.0.0.1:" + std::to_string(testing::unused_port());
  ::setenv("http_proxy", bogus.c_str(), 1);
  ::setenv("HTTP_PROXY", bogus.c_str(), 1);
  ::setenv("ALL_PROXY", bogus.c_str(), 1);
  auto transport = transport_for(server->url());
  ASSERT_NE(transport, nullptr);

  const HttpExchange exchange = transport->perform(get("/slurm/v0.0.45/ping"));
  ::unsetenv("http_proxy");
  ::unsetenv("HTTP_PROXY");
  ::unsetenv("ALL_PROXY");

  EXPECT_EQ(exchange.delivery, Delivery::answered);
  EXPECT_EQ(server->requests().size(), 1u);
}

TEST(CurlTransportTest, UsesTheExplicitProxyOnly) {
  auto proxy = TestHttpServer::start_tcp([](const ReceivedRequest&) { return Action::reply(200, "{}"); });
  ASSERT_NE(proxy, nullptr) << "the test server could not start";
  CurlTransportOptions options;
  options.url = "http://slurmrestd.invalid:6820";
  options.proxy = proxy->url();
  options.allow_insecure_http = true;
  auto transport = CurlTransport::create(options);
  ASSERT_TRUE(transport.ok()) << transport.error().message();

  EXPECT_EQ((*transport)->perform(get("/slurm/v0.0.45/ping")).delivery, Delivery::answered);
  ASSERT_EQ(proxy->requests().size(), 1u);
  EXPECT_EQ(proxy->requests().at(0).target, "http://slurmrestd.invalid:6820/slurm/v0.0.45/ping");
}

TEST(CurlTransportTest, RefusesPlainHttpToARemoteHostUnlessAllowed) {
  CurlTransportOptions options;
  options.url = "http://slurmrestd.example:6820";
  auto made = CurlTransport::create(options);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error().message(),
            "REST URL \"http://slurmrestd.example:6820\": would send the JWT unencrypted over http:// to "
            "slurmrestd.example; use https:// or a unix: socket, or set TUNEPLANE_SLURM_ALLOW_INSECURE_HTTP=1");
  options.allow_insecure_http = true;
  EXPECT_TRUE(CurlTransport::create(options).ok());
  options = {};
  options.url = "https://slurmrestd.example:6820";
  EXPECT_TRUE(CurlTransport::create(options).ok());
  options.url = "http://127.0.0.1:6820";
  options.proxy = "http://proxy.example:3128";
  EXPECT_FALSE(CurlTransport::create(options).ok());
}

TEST(CurlTransportTest, RefusesHeaderValuesWithCrLfWithoutSendingAnything) {
  auto server = TestHttpServer::start_tcp([](const ReceivedRequest&) { return Action::reply(200, "{}"); });
  ASSERT_NE(server, nullptr) << "the test server could not start";
  auto transport = transport_for(server->url());
  ASSERT_NE(transport, nullptr);
  HttpRequest request = get("/slurm/v0.0.45/ping");
  request.headers = {{"X-SLURM-USER-TOKEN", "secret\r\nX-Evil: 1"}};

  const HttpExchange exchange = transport->perform(request);

  EXPECT_EQ(exchange.delivery, Delivery::not_sent);
  EXPECT_EQ(exchange.detail,
            "header X-SLURM-USER-TOKEN not sent: its value contains CR at byte 7, which an HTTP header cannot carry");
  EXPECT_EQ(exchange.detail.find("secret"), std::string::npos);
  EXPECT_TRUE(server->requests().empty());
}

TEST(CurlTransportTest, TakesTimeoutsLowSpeedAndProxyFromSettings) {
  model::Settings settings;
  settings.connect_timeout = std::chrono::seconds(3);
  settings.request_timeout = std::chrono::seconds(90);
  settings.low_speed_limit = 10;
  settings.low_speed_time = std::chrono::seconds(20);
  settings.proxy = "http://127.0.0.1:3128";
  settings.allow_insecure_http = true;
  const CurlTransportOptions options = transport_options(settings);
  EXPECT_EQ(options.connect_timeout, std::chrono::seconds(3));
  EXPECT_EQ(options.total_timeout, std::chrono::seconds(90));
  EXPECT_EQ(options.low_speed_limit, 10);
  EXPECT_EQ(options.low_speed_time, std::chrono::seconds(20));
  EXPECT_EQ(options.proxy, "http://127.0.0.1:3128");
  EXPECT_TRUE(options.allow_insecure_http);
}

TEST(CurlTransportTest, SpeaksToAUnixSocketUrl) {
  const std::string path = "/tmp/tp-slurm-test-" + std::to_string(::getpid()) + ".sock";
  auto server =
      TestHttpServer::start_unix(path, [](const ReceivedRequest&) { return Action::reply(200, R"({"ok":1})"); });
  ASSERT_NE(server, nullptr) << "the test server could not start on " << path;
  auto transport = transport_for("unix:" + path);
  ASSERT_NE(transport, nullptr);

  const HttpExchange exchange = transport->perform(get("/slurm/v0.0.38/ping"));

  EXPECT_EQ(exchange.delivery, Delivery::answered);
  EXPECT_EQ(exchange.response.body, R"({"ok":1})");
  EXPECT_EQ(server->requests().at(0).target, "/slurm/v0.0.38/ping");
  ::unlink(path.c_str());
}

TEST(CurlTransportTest, RefusesUrlsItCannotUse) {
  CurlTransportOptions options;
  options.url = "ftp://example";
  auto made = CurlTransport::create(options);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error().message(),
            "REST URL \"ftp://example\": use http://host:port, https://host:port or unix:/path");
  options.url = "unix:relative.sock";
  made = CurlTransport::create(options);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(
      made.error().message(),
      "REST URL \"unix:relative.sock\": a unix socket URL needs an absolute path, e.g. unix:/run/slurmrestd.sock");
}

TEST(CurlTransportTest, RefusesAnAnswerLargerThanTheLimit) {
  auto server =
      TestHttpServer::start_tcp([](const ReceivedRequest&) { return Action::reply(200, std::string(100000, 'x')); });
  ASSERT_NE(server, nullptr) << "the test server could not start";
  CurlTransportOptions options;
  options.url = server->url();
  options.max_response_bytes = 1000;
  auto transport = CurlTransport::create(options);
  ASSERT_TRUE(transport.ok());

  const HttpExchange exchange = (*transport)->perform(get("/slurm/v0.0.38/jobs"));

  EXPECT_EQ(exchange.delivery, Delivery::uncertain);
  EXPECT_EQ(exchange.fault, TransportFault::too_large);
  EXPECT_EQ(exchange.detail, "the answer exceeded 1000 bytes");

  // The limit counts every byte a reader took too, so a runaway listing still ends.
  RecordingReader reader;
  HttpRequest listing = get("/slurm/v0.0.45/jobs");
  listing.reader = &reader;
  const HttpExchange streamed = (*transport)->perform(listing);
  EXPECT_EQ(streamed.delivery, Delivery::uncertain);
  EXPECT_EQ(streamed.fault, TransportFault::too_large);
  EXPECT_LE(reader.taken.size(), 1000u);
}

// A listing's body goes to the request's reader as it arrives: every byte in order, while the
// response keeps only its first kKeptBodyBytes; without a reader the body is whole.
TEST(CurlTransportTest, ARequestsReaderTakesTheBodyAndTheResponseKeepsItsStart) {
  std::string body;
  for (int i = 0; body.size() < 3 * kKeptBodyBytes; ++i) body += std::to_string(i) + ",";
  auto server = TestHttpServer::start_tcp([&](const ReceivedRequest&) { return Action::reply(200, body); });
  ASSERT_NE(server, nullptr) << "the test server could not start";
  auto transport = transport_for(server->url());
  ASSERT_NE(transport, nullptr);

  RecordingReader reader;
  HttpRequest listing = get("/slurm/v0.0.45/jobs");
  listing.reader = &reader;
  const HttpExchange streamed = transport->perform(listing);
  ASSERT_EQ(streamed.delivery, Delivery::answered) << streamed.detail;
  EXPECT_EQ(reader.taken, body);
  EXPECT_TRUE(streamed.response.streamed);
  EXPECT_EQ(streamed.response.body, body.substr(0, kKeptBodyBytes));
  EXPECT_EQ(streamed.response.body_size(), body.size());

  const HttpExchange whole = transport->perform(get("/slurm/v0.0.45/jobs"));
  EXPECT_FALSE(whole.response.streamed);
  EXPECT_EQ(whole.response.body, body);
  EXPECT_EQ(whole.response.body_size(), body.size());
}

// A full job listing is given a timeout of its own (HttpRequest::timeout): longer or shorter,
// it replaces the transport's total timeout for that request only.
TEST(CurlTransportTest, ARequestsOwnTimeoutReplacesTheTotalTimeout) {
  auto server = TestHttpServer::start_tcp([](const ReceivedRequest&) { return Action::hang(); });
  ASSERT_NE(server, nullptr);
  auto short_total = transport_for(server->url(), std::chrono::milliseconds(150));
  ASSERT_NE(short_total, nullptr);
  HttpRequest listing = get("/slurm/v0.0.45/jobs");
  listing.timeout = std::chrono::milliseconds(800);
  auto started = std::chrono::steady_clock::now();
  HttpExchange exchange = short_total->perform(listing);
  EXPECT_EQ(exchange.fault, TransportFault::send_timeout);
  EXPECT_GE(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(750));

  auto long_total = transport_for(server->url(), std::chrono::seconds(30));
  ASSERT_NE(long_total, nullptr);
  listing.timeout = std::chrono::milliseconds(150);
  started = std::chrono::steady_clock::now();
  exchange = long_total->perform(listing);
  EXPECT_EQ(exchange.fault, TransportFault::send_timeout);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
}

}  // namespace
}  // namespace tpslurm::slurm
