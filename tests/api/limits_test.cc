// Hostile clients — oversized headers and bodies, one that sends half a request and waits,
// one that hangs up mid-request, hundreds of idle connections, connections that outlast their
// time, more connections than descriptors allow — are refused or closed while every other
// client, the authenticated ones first, keeps being served; what was refused and what timed
// out is counted in the metrics. Time limits here are generous bounds, never measurements.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cstdio>
#include <sstream>

#include "api_fixture.h"
#include "config/logging.h"
#include "support/eventually.h"

namespace tpslurm::api::testing {
namespace {

namespace json = boost::json;
constexpr std::chrono::seconds kGenerous{30};

class ApiLimitsTest : public ApiFixture {
 protected:
  ApiLimitsTest() { keep_metrics(); }

  bool healthy() { return call("GET", "/healthz", "").status == 200; }

  double refused(const std::string& reason) {
    return metric("tuneplane_api_connections_refused_total", {{"reason", reason}});
  }
  double timed_out(const std::string& phase) {
    return metric("tuneplane_api_connection_timeouts_total", {{"phase", phase}});
  }
  double open_connections(const std::string& state) { return metric("tuneplane_api_connections", {{"state", state}}); }

  // A connection that sent one request with a valid token, read its answer and stays open.
  std::unique_ptr<RawClient> authenticated_client() {
    auto client = std::make_unique<RawClient>(endpoint().port);
    EXPECT_TRUE(
        client->send("GET /v1/jobs/none HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + kAliceToken + "\r\n\r\n"));
    EXPECT_TRUE(client->wait_for("\"error\":\"not_found\"", kGenerous)) << client->received();
    return client;
  }
  // The next request on a kept-alive connection, answered.
  static bool asks_again(RawClient& client) {
    const std::size_t before = client.received().size();
    if (!client.send("GET /v1/jobs/again HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + kAliceToken + "\r\n\r\n")) {
      return false;
    }
    return client.wait_for("no job again", kGenerous) && client.received().size() > before;
  }
};

TEST_F(ApiLimitsTest, AnOversizedHeaderIs431AndOthersAreStillServed) {
  start();
  const auto answer = http(endpoint(), "GET", "/v1/jobs/x", "", {"X-Padding: " + std::string(16 * 1024, 'a')});
  EXPECT_EQ(answer.status, 431) << answer.error;
  EXPECT_EQ(json::parse(answer.body).at("error"), "headers_too_large");
  EXPECT_TRUE(healthy());
}

TEST_F(ApiLimitsTest, AnOversizedBodyIs413AndNothingIsJournaled) {
  start();
  std::string request = example_request();
  request = replaced(request, "\"working_dir\"", "\"pad\": \"" + std::string(1100 * 1024, 'x') + "\", \"working_dir\"");
  const auto answer = call("POST", "/v1/jobs", kAliceToken, request);
  EXPECT_EQ(answer.status, 413) << answer.error;
  EXPECT_EQ(json::parse(answer.body).at("error"), "body_too_large");
  EXPECT_TRUE(healthy());
  auto jobs = open_journal()->jobs();
  ASSERT_TRUE(jobs.ok());
  EXPECT_TRUE(jobs->empty());
}

TEST_F(ApiLimitsTest, AClientThatExpects100ContinueGetsItAndThenItsAnswer) {
  start();
  const std::string body = example_request();
  RawClient client(endpoint().port);
  ASSERT_TRUE(client.send(
      "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + kAliceToken +
      "\r\nExpect: 100-continue\r\nConnection: close\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n"));
  ASSERT_TRUE(client.wait_for("\r\n\r\n", kGenerous));
  EXPECT_EQ(client.received(), "HTTP/1.1 100 Continue\r\n\r\n");
  ASSERT_TRUE(client.send(body));
  ASSERT_TRUE(client.wait_closed(kGenerous));
  EXPECT_NE(client.received().find("HTTP/1.1 201 Created"), std::string::npos) << client.received();

  RawClient refused(endpoint().port);
  ASSERT_TRUE(refused.send("POST /v1/jobs HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: " +
                           std::to_string(2 << 20) + "\r\n\r\n"));
  ASSERT_TRUE(refused.wait_closed(kGenerous));
  EXPECT_EQ(refused.received().substr(0, 12), "HTTP/1.1 413") << refused.received();
}

// A sweep's larger body (16 MiB) is for a token that may submit, known from the headers alone:
// any other client is held to 1 MiB before a byte of its body is read, as on every route.
TEST_F(ApiLimitsTest, ASweepsLargerBodyIsReadOnlyForATokenThatMaySubmit) {
  write_tokens("alice " + kAliceToken + " read,submit\nbob " + kBobToken + " read\n");
  start();
  const std::string big = std::to_string(2 << 20);
  for (const std::string& authorization : std::vector<std::string>{
           "", "Authorization: Bearer not-a-token\r\n", "Authorization: Bearer " + kBobToken + "\r\n"}) {
    RawClient refused(endpoint().port);
    ASSERT_TRUE(refused.send("POST /v1/sweeps HTTP/1.1\r\nHost: x\r\n" + authorization +
                             "Expect: 100-continue\r\nContent-Length: " + big + "\r\n\r\n"));
    ASSERT_TRUE(refused.wait_closed(kGenerous));
    EXPECT_EQ(refused.received().substr(0, 12), "HTTP/1.1 413") << authorization << refused.received();
  }
  RawClient submitter(endpoint().port);
  ASSERT_TRUE(submitter.send("POST /v1/sweeps HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + kAliceToken +
                             "\r\nExpect: 100-continue\r\nContent-Length: " + big + "\r\n\r\n"));
  ASSERT_TRUE(submitter.wait_for("\r\n\r\n", kGenerous));
  EXPECT_EQ(submitter.received(), "HTTP/1.1 100 Continue\r\n\r\n");
}

TEST_F(ApiLimitsTest, MalformedHttpIs400) {
  start();
  RawClient client(endpoint().port);
  ASSERT_TRUE(client.send("GET /healthz HTTP/9.9\r\n\r\n"));
  ASSERT_TRUE(client.wait_closed(kGenerous));
  EXPECT_EQ(client.received().substr(0, 12), "HTTP/1.1 400");
  EXPECT_TRUE(healthy());
}

TEST_F(ApiLimitsTest, ASlowClientIsClosedWhileAnotherIsServed) {
  start();  // one second to send a whole request
  RawClient slow(endpoint().port);
  ASSERT_TRUE(slow.connected());
  ASSERT_TRUE(slow.send("POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n{\"job_id\""));
  EXPECT_TRUE(healthy());
  EXPECT_EQ(call("GET", "/v1/jobs/none", kAliceToken).status, 404);
  EXPECT_TRUE(slow.wait_closed(kGenerous)) << "the server kept a half-sent request open";
  EXPECT_TRUE(slow.received().empty()) << slow.received();
  EXPECT_TRUE(healthy());
}

TEST_F(ApiLimitsTest, AClientThatHangsUpMidRequestLeavesTheServerServing) {
  start();
  for (int i = 0; i < 5; ++i) {
    RawClient gone(endpoint().port);
    ASSERT_TRUE(gone.send("POST /v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + kAliceToken +
                          "\r\nContent-Length: 4000\r\n\r\n" + example_request().substr(0, 100)));
    gone.close();
  }
  EXPECT_TRUE(healthy());
  EXPECT_EQ(call("POST", "/v1/jobs", kAliceToken, example_request()).status, 201);
}

// The reproduction: hundreds of connections that send nothing, from one peer, while an
// authenticated client asks. The idle ones are closed, oldest first, to make room; the client
// is answered.
TEST_F(ApiLimitsTest, HundredsOfIdleConnectionsFromOnePeerDoNotLockOutAnAuthenticatedClient) {
  ServerLimits limits = test_limits();
  limits.connections = 256;
  limits.first_request_time = std::chrono::seconds(60);  // idle for the whole test: no timeout helps
  start(limits);
  auto known = authenticated_client();
  std::vector<std::unique_ptr<RawClient>> idle;
  for (int i = 0; i < 300; ++i) {
    idle.push_back(std::make_unique<RawClient>(endpoint().port));
    ASSERT_TRUE(idle.back()->connected()) << i;
  }
  const auto answer = call("GET", "/v1/jobs/none", kAliceToken);
  EXPECT_EQ(answer.status, 404) << answer.body;
  EXPECT_TRUE(asks_again(*known)) << "an authenticated connection is never closed to make room";
  // The oldest idle ones were closed; as many as one peer may hold are still open.
  EXPECT_TRUE(idle.front()->wait_closed(kGenerous));
  EXPECT_EQ(idle.front()->received(), "");
  EXPECT_GE(refused("peer"), 300.0 - static_cast<double>(limits.unauthenticated_per_peer));
  EXPECT_EQ(refused("connections"), 0.0);
  EXPECT_TRUE(tpslurm::testing::eventually([&] { return open_connections("authenticated") == 1.0; }));
  EXPECT_LE(open_connections("unauthenticated"), static_cast<double>(limits.unauthenticated_per_peer));
}

TEST_F(ApiLimitsTest, WhenEveryConnectionIsAnAuthenticatedClientsOneMoreGets503) {
  ServerLimits limits = test_limits();
  limits.connections = 2;
  limits.idle_time = std::chrono::seconds(60);  // the two clients stay for the whole test
  start(limits);
  auto first = authenticated_client();
  auto second = authenticated_client();
  const auto answer = call("GET", "/healthz", "");
  ASSERT_EQ(answer.status, 503) << answer.body;
  EXPECT_EQ(json::parse(answer.body).at("error"), "too_many_connections");
  EXPECT_EQ(answer.headers.at("retry-after"), "1");
  EXPECT_EQ(refused("connections"), 1.0);
  first->close();
  bool served = false;
  for (int tries = 0; tries < 300 && !served; ++tries) served = healthy();
  EXPECT_TRUE(served);
  EXPECT_TRUE(asks_again(*second));
}

// A connection that sends nothing is closed at its first request's time; one whose request
// carried a valid token may stay idle longer, and is closed at the idle time.
TEST_F(ApiLimitsTest, AConnectionIsClosedWhenItsTimeRunsOutShorterBeforeItsFirstValidToken) {
  ServerLimits limits = test_limits();
  limits.first_request_time = std::chrono::milliseconds(200);
  limits.idle_time = std::chrono::seconds(60);
  start(limits);
  auto known = authenticated_client();
  RawClient silent(endpoint().port);
  RawClient anonymous(endpoint().port);
  ASSERT_TRUE(anonymous.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_TRUE(silent.wait_closed(kGenerous));
  EXPECT_EQ(silent.received(), "");
  EXPECT_TRUE(anonymous.wait_closed(kGenerous)) << "a request without a token does not make a client known";
  EXPECT_NE(anonymous.received().find("HTTP/1.1 200"), std::string::npos);
  EXPECT_TRUE(asks_again(*known)) << "the known connection outlived both";
  // A timed-out socket is closed before its reader learns why: the count follows.
  EXPECT_TRUE(tpslurm::testing::eventually([&] { return timed_out("first_request") == 2.0; }))
      << timed_out("first_request");
  EXPECT_EQ(timed_out("idle"), 0.0);
}

TEST_F(ApiLimitsTest, AnAuthenticatedConnectionIsClosedWhenIdleTooLong) {
  ServerLimits limits = test_limits();
  limits.idle_time = std::chrono::milliseconds(200);
  limits.first_request_time = limits.request_time = std::chrono::seconds(60);  // the idle time alone ends it
  start(limits);
  auto known = authenticated_client();
  EXPECT_TRUE(known->wait_closed(kGenerous));
  EXPECT_TRUE(tpslurm::testing::eventually([&] { return timed_out("idle") == 1.0; })) << timed_out("idle");
  EXPECT_TRUE(tpslurm::testing::eventually([&] { return open_connections("authenticated") == 0.0; }));
}

// The server accepts only while the process keeps `descriptor_reserve` descriptors free: here
// a reserve that leaves room for a few dozen more, taken by idle clients (each takes one
// descriptor on either side). Beyond, a connection is closed unanswered, counted and logged
// once; the clients gone, connections are served again.
TEST_F(ApiLimitsTest, ConnectionsThatWouldEatTheDescriptorReserveAreRefusedUntilDescriptorsAreFree) {
  rlimit descriptors{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &descriptors), 0);
  const int lowest_free = ::open("/dev/null", O_RDONLY);
  ASSERT_GE(lowest_free, 0);
  ::close(lowest_free);
  ServerLimits limits = test_limits();
  limits.first_request_time = std::chrono::seconds(60);
  limits.unauthenticated = 200;
  limits.unauthenticated_per_peer = 200;
  limits.descriptor_reserve =
      static_cast<std::size_t>(descriptors.rlim_cur) - static_cast<std::size_t>(lowest_free) - 60;
  std::ostringstream log;
  ASSERT_TRUE(config::configure_logging("info", model::LogFormat::text, log).ok());
  start(limits);
  std::vector<std::unique_ptr<RawClient>> idle;
  for (int i = 0; i < 60; ++i) idle.push_back(std::make_unique<RawClient>(endpoint().port));
  EXPECT_TRUE(tpslurm::testing::eventually([&] { return refused("descriptors") >= 1; }));
  EXPECT_TRUE(idle.back()->wait_closed(kGenerous));
  EXPECT_EQ(idle.back()->received(), "");
  EXPECT_FALSE(healthy());
  idle.clear();
  EXPECT_TRUE(tpslurm::testing::eventually([&] { return healthy(); }));
  stop();
  ASSERT_TRUE(config::configure_logging("info", model::LogFormat::text).ok());
  const std::string text = log.str();
  const std::string warning = " warn API: refusing new connections: each would leave fewer than ";
  EXPECT_NE(text.find(warning), std::string::npos) << text;
  EXPECT_EQ(text.find(warning), text.rfind(warning)) << "logged more than once in one episode:\n" << text;
}

TEST_F(ApiLimitsTest, ServesAUnixSocketCreated0660) {
  const std::string socket = dir.file("run/api.sock");
  ASSERT_EQ(::mkdir(dir.file("run").c_str(), 0755), 0);
  start(test_limits(), "unix:" + socket);
  struct stat info {};
  ASSERT_EQ(::lstat(socket.c_str(), &info), 0);
  EXPECT_TRUE(S_ISSOCK(info.st_mode));
  EXPECT_EQ(info.st_mode & 0777, 0660u);
  EXPECT_TRUE(healthy());
  EXPECT_EQ(call("GET", "/v1/jobs/none", kAliceToken).status, 404);
  EXPECT_EQ(call("GET", "/v1/jobs/none", "").status, 401);
  stop();
  EXPECT_NE(::lstat(socket.c_str(), &info), 0) << "the socket outlived the server";
}

// On a unix socket a peer is a user: this test's idle connections are one peer, and an
// authenticated client of the same user is still served.
TEST_F(ApiLimitsTest, OnAUnixSocketIdleConnectionsOfOneUserAreOnePeer) {
  const std::string socket = dir.file("api.sock");
  ServerLimits limits = test_limits();
  limits.first_request_time = std::chrono::seconds(60);
  start(limits, "unix:" + socket);
  std::vector<std::unique_ptr<RawClient>> idle;
  for (int i = 0; i < 40; ++i) {
    idle.push_back(std::make_unique<RawClient>(socket));
    ASSERT_TRUE(idle.back()->connected()) << i;
  }
  EXPECT_EQ(call("GET", "/v1/jobs/none", kAliceToken).status, 404);
  EXPECT_TRUE(idle.front()->wait_closed(kGenerous));
  EXPECT_GE(refused("peer"), 40.0 - static_cast<double>(limits.unauthenticated_per_peer));
}

TEST_F(ApiLimitsTest, AStaleSocketIsReplacedAndAnyOtherFileRefused) {
  const std::string path = dir.file("api.sock");
  const int stale = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof address.sun_path, "%s", path.c_str());
  ASSERT_EQ(::bind(stale, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ::close(stale);
  start(test_limits(), "unix:" + path);
  EXPECT_TRUE(healthy());
  stop();
  tpslurm::testing::write_test_file(path, "not a socket");
  EXPECT_EQ(try_start(test_limits(), "unix:" + path),
            "TUNEPLANE_API_LISTEN unix:" + path + ": exists and is not a socket; remove it or pick another path");
  EXPECT_EQ(tpslurm::testing::read_test_file(path), "not a socket");
}

TEST_F(ApiLimitsTest, AnAddressInUseIsAClearError) {
  start();
  const std::string taken = "127.0.0.1:" + std::to_string(endpoint().port);
  const std::string second = try_start(test_limits(), taken);
  EXPECT_NE(second.find("TUNEPLANE_API_LISTEN " + taken + ": cannot listen: "), std::string::npos) << second;
}

}  // namespace
}  // namespace tpslurm::api::testing
