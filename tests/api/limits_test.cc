// Hostile clients — oversized headers and bodies, one that sends half a request and waits,
// one that hangs up mid-request, more connections than allowed — are refused or closed while
// every other client keeps being served. Time limits here are generous bounds, never
// measurements.
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cstdio>

#include "api_fixture.h"

namespace tpslurm::api::testing {
namespace {

namespace json = boost::json;
constexpr std::chrono::seconds kGenerous{30};

class ApiLimitsTest : public ApiFixture {
 protected:
  bool healthy() { return call("GET", "/healthz", "").status == 200; }
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

TEST_F(ApiLimitsTest, ConnectionsBeyondTheLimitGet503) {
  ServerLimits limits = test_limits();
  limits.connections = 2;
  limits.request_time = std::chrono::seconds(60);  // the two idle clients stay for the whole test
  start(limits);
  RawClient first(endpoint().port);
  RawClient second(endpoint().port);
  ASSERT_TRUE(first.send("GET /healthz HTTP/1.1\r\nHost: x\r\n"));
  ASSERT_TRUE(second.send("GET /healthz HTTP/1.1\r\nHost: x\r\n"));
  // The server accepts in order: once a third connection is refused, both are counted.
  HttpAnswer answer;
  for (int tries = 0; tries < 300 && answer.status != 503; ++tries) answer = call("GET", "/healthz", "");
  ASSERT_EQ(answer.status, 503);
  EXPECT_EQ(json::parse(answer.body).at("error"), "too_many_connections");
  first.close();
  second.close();
  bool served = false;
  for (int tries = 0; tries < 300 && !served; ++tries) served = healthy();
  EXPECT_TRUE(served);
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
