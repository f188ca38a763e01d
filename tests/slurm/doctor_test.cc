// doctor's checks against recorded answers: one line per check, the fix on every failure.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include "fake_transport.h"
#include "slurm/doctor.h"
#include "slurm/jwt.h"
#include "support/temp_dir.h"
#include "test_support.h"

namespace tpslurm::slurm {
namespace {

const TimePoint kNow = from_unix_seconds(1796040000);

class DoctorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_settings.rest_url = "http://slurmrestd.test:6820";
    m_settings.rest_api_version = "auto";
    m_settings.rest_user = "alice";
    m_settings.allow_insecure_http = true;
    m_settings.jwt_file = m_dir.file("jwt");
    m_settings.partition = "debug";
    tpslurm::testing::write_test_file(m_settings.jwt_file,
                                      "SLURM_JWT=" + mint_hs256("key", "alice", kNow, std::chrono::hours(48)) + "\n");
    m_transport.answer("/slurm/v0.0.38/ping", 200, testing::transcript_v0038("ping").response_body);
    m_transport.answer("/slurm/v0.0.38/partitions", 200, testing::transcript_v0038("get_partitions").response_body);
  }

  std::vector<DoctorCheck> run() { return run_doctor(m_settings, m_transport, m_clock); }

  tpslurm::testing::TempDir m_dir;
  model::Settings m_settings;
  testing::FakeTransport m_transport;
  ManualClock m_clock{kNow};
};

TEST_F(DoctorTest, AHealthy2205ClusterPassesEveryCheck) {
  const auto checks = run();
  EXPECT_TRUE(all_ok(checks)) << format_report(checks);
  EXPECT_EQ(format_report(checks),
            "ok    configuration: REST http://slurmrestd.test:6820, API auto, user alice\n"
            "ok    token transport: the JWT goes unencrypted over http:// to slurmrestd.test "
            "(TUNEPLANE_SLURM_ALLOW_INSECURE_HTTP=1)\n"
            "ok    secret files: " + m_settings.jwt_file + ": owned by this user, mode 0600 or stricter\n"
            "ok    token: token file " + m_settings.jwt_file + ": valid for 2d (until 2026-12-02T12:00:00Z)\n"
            "ok    token user: the token is for alice, not root (SlurmUser is not checked: slurmrestd does not "
            "report it)\n"
            "ok    REST reachability: slurmrestd at http://slurmrestd.test:6820 answers\n"
            "ok    REST versions: offers v0.0.38; using v0.0.38; Slurm release 22.05.8\n"
            "ok    authenticated call: slurmctld accepted the token for alice\n"
            "ok    partitions: debug exists\n"
            "ok    accounting: none (slurmrestd serves no slurmdbd endpoints (HTTP 404)), a supported configuration: "
            "a job slurmctld purged is known only from its attempt's logs/exit.json and logs/slurm-job.json\n"
            "ok    identity: degraded: identity is job id + tag (no SLUID in this server's or REST version's job "
            "records) (release 22.05.8, v0.0.38)\n");
}

TEST_F(DoctorTest, ATokenFileOthersCanReadFails) {
  ::chmod(m_settings.jwt_file.c_str(), 0644);
  const auto checks = run();
  EXPECT_FALSE(all_ok(checks));
  EXPECT_EQ(checks.at(2), (DoctorCheck{"secret files", false,
                                       m_settings.jwt_file + " has mode 0644; group and others must have no access",
                                       "chown the file to the service account and chmod 600 it (docs/deploy.md, step 3: The service user and its token)"}));
}

TEST_F(DoctorTest, ARefusedTokenFailsTheAuthenticatedCall) {
  m_transport.answer("/slurm/v0.0.38/ping", 500, testing::transcript_v0038("auth_badsig").response_body);
  const auto checks = run();
  const auto& auth = checks.at(7);
  EXPECT_EQ(auth.name, "authenticated call");
  EXPECT_FALSE(auth.ok);
  EXPECT_EQ(auth.fix,
            "the token is refused: check it belongs to alice and was signed with the cluster's key; rotate it "
            "(docs/deploy.md, step 1: JWT authentication in Slurm)");
}

TEST_F(DoctorTest, AMissingPartitionIsNamedWithWhatExists) {
  m_settings.cpu_partition = "cpu";
  const auto checks = run();
  EXPECT_EQ(checks.at(8), (DoctorCheck{"partitions", false, "not on the cluster: cpu (it has debug)",
                                       "set TUNEPLANE_SLURM_PARTITION / TUNEPLANE_SLURM_CPU_PARTITION to existing partitions "
                                       "(docs/deploy.md, step 8: Configure the daemon)"}));
}

TEST_F(DoctorTest, AnUnreachableServerStopsAfterTheReachabilityCheck) {
  m_transport.fail("/slurm/v0.0.45/ping", Delivery::not_sent, TransportFault::connect_refused);
  const auto checks = run();
  ASSERT_EQ(checks.size(), 6u);
  EXPECT_EQ(checks[5], (DoctorCheck{"REST reachability", false,
                                    "GET /slurm/v0.0.45/ping: not sent: connection refused (http://slurmrestd.test:6820)",
                                    "start slurmrestd or fix TUNEPLANE_SLURM_REST_URL (http://slurmrestd.test:6820) "
                                    "(docs/deploy.md, step 2: slurmrestd)"}));
}

TEST_F(DoctorTest, ATokenAboutToExpireFails) {
  m_clock.advance(std::chrono::hours(48) - std::chrono::seconds(100));
  const auto checks = run();
  EXPECT_EQ(checks.at(3).ok, false);
  EXPECT_EQ(checks.at(3).detail, "token file " + m_settings.jwt_file + ": expires in 1m40s (until 2026-12-02T12:00:00Z)");
  EXPECT_EQ(checks.at(3).fix, "rotate the token now; use a longer lifespan or minting (docs/deploy.md, step 3: The service user and its token)");
}

// Nothing in the daemon renews a token file: a day before it expires doctor warns (and fails
// nothing), naming the step of the guide that sets up its renewal.
TEST_F(DoctorTest, ATokenFileThatExpiresWithinADayIsAWarningNamingItsStep) {
  m_clock.advance(std::chrono::hours(24) - std::chrono::seconds(1));
  EXPECT_FALSE(run().at(3).warning) << "a day and a second left";
  m_clock.advance(std::chrono::hours(23));
  const auto checks = run();
  EXPECT_TRUE(all_ok(checks)) << format_report(checks);
  EXPECT_EQ(checks.at(3),
            (DoctorCheck{"token", true,
                         "token file " + m_settings.jwt_file + ": valid for 1h1s (until 2026-12-02T12:00:00Z): it "
                         "expires within a day and nothing in the daemon renews a token file",
                         "renew the file before then (scontrol token lifespan=<seconds>; the package's "
                         "tuneplane-slurm-token.timer does it on a host that keeps the key), or set "
                         "TUNEPLANE_SLURM_JWT_KEY_FILE instead for the daemon to mint its own (docs/deploy.md, step 3: The service user and its token)",
                         true}));
  EXPECT_NE(format_report(checks).find("warn  token: "), std::string::npos) << format_report(checks);
}

// A token minted from the key lives TUNEPLANE_SLURM_JWT_LIFESPAN (30 minutes by default): the
// daemon mints the next one, so a short life is no warning.
TEST_F(DoctorTest, AMintedTokenIsRenewedByTheDaemonAndNoWarning) {
  m_settings.jwt_file.clear();
  m_settings.jwt_key_file = m_dir.file("jwt.key");
  tpslurm::testing::write_test_file(m_settings.jwt_key_file, "a-key-of-thirty-two-bytes-or-more-0123456789");
  ASSERT_EQ(::chmod(m_settings.jwt_key_file.c_str(), 0600), 0);
  const auto checks = run();
  EXPECT_EQ(checks.at(3), (DoctorCheck{"token", true,
                                       "tokens minted for alice from key file " + m_settings.jwt_key_file +
                                           ": valid for 30m (until 2026-11-30T12:30:00Z); the daemon mints the next "
                                           "one before it expires",
                                       ""}));
}

TEST_F(DoctorTest, MissingConfigurationIsListedWithFixes) {
  m_settings.rest_user.clear();
  m_settings.partition.clear();
  const auto checks = run();
  EXPECT_EQ(checks.at(0), (DoctorCheck{"configuration", false,
                                       "TUNEPLANE_SLURM_REST_USER is not set, TUNEPLANE_SLURM_PARTITION is not set",
                                       "set it to the Slurm user jobs run as, set it to the partition GPU jobs go to "
                                       "(docs/deploy.md, step 8: Configure the daemon)"}));
  EXPECT_EQ(checks.at(3).detail, "TUNEPLANE_SLURM_REST_USER is not set; name the Slurm user jobs run as");
}

TEST_F(DoctorTest, ATokenForAnotherUserFails) {
  tpslurm::testing::write_test_file(m_settings.jwt_file,
                                    "SLURM_JWT=" + mint_hs256("key", "bob", kNow, std::chrono::seconds(3600)) + "\n");
  const auto checks = run();
  EXPECT_EQ(checks.at(4), (DoctorCheck{"token user", false, "the token is for bob, not TUNEPLANE_SLURM_REST_USER alice",
                                       "write a token for alice (scontrol token username=alice) (docs/deploy.md, step 3: The service user and its token)"}));
}

TEST_F(DoctorTest, ATokenForRootFails) {
  m_settings.rest_user = "root";
  tpslurm::testing::write_test_file(m_settings.jwt_file,
                                    "SLURM_JWT=" + mint_hs256("key", "root", kNow, std::chrono::seconds(3600)) + "\n");
  const auto checks = run();
  EXPECT_EQ(checks.at(4), (DoctorCheck{"token user", false,
                                       "the token is for root (uid 0), which Slurm lets act as any user",
                                       "run jobs as an unprivileged Slurm user with a token of its own (docs/deploy.md, step 3: The service user and its token)"}));
}

TEST_F(DoctorTest, PlainHttpToARemoteHostFailsUnlessAllowed) {
  m_settings.allow_insecure_http = false;
  const auto checks = run();
  EXPECT_EQ(checks.at(1), (DoctorCheck{"token transport", false,
                                       "the JWT goes unencrypted over http:// to slurmrestd.test",
                                       "use https:// or a unix: socket, or set TUNEPLANE_SLURM_ALLOW_INSECURE_HTTP=1 "
                                       "to accept it (docs/deploy.md, step 2: slurmrestd)"}));
  m_settings.rest_url = "http://127.0.0.1:6820";
  EXPECT_EQ(run().at(1), (DoctorCheck{"token transport", true,
                                      "the JWT goes over https://, a unix socket or loopback only", ""}));
}

}  // namespace
}  // namespace tpslurm::slurm
