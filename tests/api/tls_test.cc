// HTTPS: with TUNEPLANE_API_TLS_CERT and TUNEPLANE_API_TLS_KEY the API answers over TLS only —
// a client that trusts the certificate is served, one that speaks plain HTTP or fails the
// handshake is closed and the others are still served; a key that is not the certificate's,
// a key file others may write (a secret file), a certificate without its key and TLS on a unix socket are each
// refused naming the setting; connects that never begin a handshake neither pile up nor outlast
// the handshake time. The certificates are made by the openssl command for each test.
#include <sys/stat.h>

#include <filesystem>
#include <memory>
#include <vector>

#include "api_fixture.h"
#include "support/eventually.h"

namespace tpslurm::api::testing {
namespace {

class ApiTlsTest : public ApiFixture {
 protected:
  // How many file descriptors this process has open now.
  static std::size_t open_descriptors() {
    std::size_t count = 0;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
      (void)entry;
      ++count;
    }
    return count;
  }

  // A self-signed certificate for 127.0.0.1 and its key (0600), named `name`.crt / .key.
  void make_certificate(const std::string& name) {
    const auto made = tpslurm::testing::run_process(
        {"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", dir.file(name + ".key"), "-out",
         dir.file(name + ".crt")},
        tpslurm::testing::minimal_environment());
    ASSERT_EQ(made.exit_code, 0) << made.err;
    ASSERT_EQ(::chmod(dir.file(name + ".key").c_str(), 0600), 0);
  }

  void use(const std::string& cert, const std::string& key) {
    env["TUNEPLANE_API_TLS_CERT"] = dir.file(cert + ".crt");
    env["TUNEPLANE_API_TLS_KEY"] = dir.file(key + ".key");
  }
};

TEST_F(ApiTlsTest, ATrustingClientIsServedOverHttpsAndPlainHttpIsNot) {
  make_certificate("api");
  use("api", "api");
  start();
  const Endpoint https = endpoint();
  ASSERT_FALSE(https.ca_file.empty());
  const auto health = http(https, "GET", "/healthz");
  EXPECT_EQ(health.status, 200) << health.error;
  const auto jobs = call("GET", "/v1/jobs", kAliceToken);
  EXPECT_EQ(jobs.status, 200) << jobs.error;

  // Plain HTTP to the HTTPS port gets no HTTP answer; the server goes on serving TLS.
  const auto plain = http({https.port, "", ""}, "GET", "/healthz");
  EXPECT_EQ(plain.status, 0) << plain.body;
  RawClient raw(https.port);
  ASSERT_TRUE(raw.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_TRUE(raw.wait_closed(std::chrono::seconds(10)));
  EXPECT_EQ(raw.received().find("HTTP/1.1 200"), std::string::npos) << raw.received();
  EXPECT_EQ(http(https, "GET", "/healthz").status, 200);

  // A client that does not trust the certificate stops at the handshake.
  make_certificate("stranger");
  const auto untrusting = http({https.port, "", dir.file("stranger.crt")}, "GET", "/healthz");
  EXPECT_EQ(untrusting.status, 0);
  EXPECT_EQ(http(https, "GET", "/healthz").status, 200);
}

// The second reproduction: connects that never send a ClientHello took the server to
// its descriptor limit. However many come, the server holds no more of them than one peer may
// keep unauthenticated (the older ones are closed to make room), and a client that speaks TLS
// is served.
TEST_F(ApiTlsTest, ConnectsThatNeverSendAClientHelloTakeNoMoreThanOnePeersShareOfDescriptors) {
  make_certificate("api");
  use("api", "api");
  keep_metrics();
  ServerLimits limits = test_limits();
  limits.handshake_time = std::chrono::seconds(60);  // no time limit helps here
  limits.request_time = std::chrono::seconds(60);
  start(limits);
  const std::size_t before = open_descriptors();
  std::vector<std::unique_ptr<RawClient>> silent;
  for (int i = 0; i < 1000; ++i) {
    silent.push_back(std::make_unique<RawClient>(endpoint().port));
    ASSERT_TRUE(silent.back()->connected()) << i;
  }
  EXPECT_TRUE(silent.front()->wait_closed(std::chrono::seconds(30)));
  // This process holds the clients' 1,000 descriptors; of the server's side, one peer's share.
  const std::size_t bound = before + silent.size() + limits.unauthenticated_per_peer + 2;
  EXPECT_TRUE(tpslurm::testing::eventually([&] { return open_descriptors() <= bound; }))
      << open_descriptors() << " open, more than " << bound;
  const auto served = call("GET", "/v1/jobs", kAliceToken);
  EXPECT_EQ(served.status, 200) << served.error;
  EXPECT_GE(metric("tuneplane_api_connections_refused_total", {{"reason", "peer"}}), 1000.0 - 16);
}

TEST_F(ApiTlsTest, AConnectThatNeverSendsAClientHelloIsClosedAtTheHandshakeTime) {
  make_certificate("api");
  use("api", "api");
  keep_metrics();
  ServerLimits limits = test_limits();
  limits.handshake_time = std::chrono::milliseconds(200);
  limits.first_request_time = limits.request_time = std::chrono::seconds(60);  // the handshake time alone ends it
  start(limits);
  RawClient silent(endpoint().port);
  EXPECT_TRUE(silent.wait_closed(std::chrono::seconds(30)));
  EXPECT_EQ(silent.received(), "");
  EXPECT_TRUE(tpslurm::testing::eventually([&] {
    return metric("tuneplane_api_connection_timeouts_total", {{"phase", "handshake"}}) == 1.0;
  }));
  EXPECT_EQ(call("GET", "/healthz", "").status, 200);
}

TEST_F(ApiTlsTest, AKeyThatIsNotTheCertificatesIsRefusedAtStart) {
  make_certificate("api");
  make_certificate("other");
  use("api", "other");
  const std::string refused = try_start(test_limits(), "127.0.0.1:0");
  EXPECT_NE(refused.find("TUNEPLANE_API_TLS_KEY " + dir.file("other.key") +
                         ": not usable as the private key of TUNEPLANE_API_TLS_CERT " + dir.file("api.crt") +
                         " (key values mismatch"),
            std::string::npos)
      << refused;
}

TEST_F(ApiTlsTest, SettingsRefuseAHalfPairAKeyOthersMayWriteAndTlsOnAUnixSocket) {
  make_certificate("api");
  env["TUNEPLANE_API_TLS_CERT"] = dir.file("api.crt");
  const std::string half = try_start(test_limits(), "127.0.0.1:0");
  EXPECT_NE(half.find("TUNEPLANE_API_TLS_CERT"), std::string::npos) << half;
  EXPECT_NE(half.find("needs TUNEPLANE_API_TLS_KEY too"), std::string::npos) << half;

  use("api", "api");
  ASSERT_EQ(::chmod(dir.file("api.key").c_str(), 0666), 0);
  const std::string writable = try_start(test_limits(), "127.0.0.1:0");
  EXPECT_NE(writable.find("TUNEPLANE_API_TLS_KEY"), std::string::npos) << writable;
  EXPECT_NE(writable.find("writable by group or others"), std::string::npos) << writable;
  ASSERT_EQ(::chmod(dir.file("api.key").c_str(), 0600), 0);

  const std::string on_unix = try_start(test_limits(), "unix:" + dir.file("api.sock"));
  EXPECT_NE(on_unix.find("TLS is for a TCP address"), std::string::npos) << on_unix;
}

}  // namespace
}  // namespace tpslurm::api::testing
