// doctor's "Slurm users" line (slurm/doctor_users.h) against the simulator, which checks every
// token and X-SLURM-USER-NAME as slurmctld does, serves slurmdbd's associations of each user
// (--associations) and answers a user without any as each release does.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>

#include "doctor_support.h"
#include "sim_process.h"
#include "slurm/curl_transport.h"
#include "slurm/doctor.h"
#include "slurm/jwt.h"
#include "support/temp_dir.h"
#include "test_support.h"

namespace tpslurm::slurm {
namespace {

model::MappedUser user(std::string platform, std::string unix_user, std::vector<std::string> accounts) {
  model::MappedUser mapped;
  mapped.platform_user = std::move(platform);
  mapped.unix_user = std::move(unix_user);
  mapped.accounts = std::move(accounts);
  return mapped;
}

class DoctorUsersTest : public ::testing::Test {
 protected:
  // The simulator with `args`; the daemon mints from its key (or, `token_user` given, holds a
  // token file of that user's).
  void start(std::vector<std::string> args, const std::string& token_user = {}) {
    auto started = testing::SimProcess::start(args);
    ASSERT_TRUE(started.ok()) << started.error().message();
    m_sim = std::move(*started);
    m_settings.rest_url = m_sim->url();
    m_settings.rest_api_version = "auto";
    m_settings.rest_user = "tuneplane";
    m_settings.partition = "debug";
    m_settings.identity_mode = model::IdentityMode::per_user;
    if (token_user.empty()) {
      m_settings.jwt_key_file = secret_file("jwt.key", m_sim->key());
    } else {
      m_settings.jwt_file = secret_file(
          "jwt", "SLURM_JWT=" + mint_hs256(m_sim->key(), token_user, m_clock.now(), std::chrono::hours(1)) + "\n");
    }
  }

  std::string secret_file(const std::string& name, const std::string& text) {
    const std::string path = m_dir.file(name);
    tpslurm::testing::write_test_file(path, text);
    ::chmod(path.c_str(), 0400);
    return path;
  }

  // The "Slurm users" line of a doctor run with `users` mapped.
  DoctorCheck run(const std::vector<model::MappedUser>& users) {
    return testing::doctor_line(m_settings, "Slurm users", [&](auto& transport) {
      return run_doctor(m_settings, transport, m_clock, &users,
                        [this](const Mint& mint) { m_minted.push_back(mint.user); });
    });
  }

  tpslurm::testing::TempDir m_dir;
  std::unique_ptr<testing::SimProcess> m_sim;
  model::Settings m_settings;
  SystemClock m_clock;
  std::vector<std::string> m_minted;
};

TEST_F(DoctorUsersTest, WithTheKeyEachUserIsCalledAsItselfAndItsAssociationsRead) {
  start({"--associations", "daemon=acct-a:acct-b,bin=acct-b"});
  const DoctorCheck line = run({user("alice", "daemon", {"acct-a"}), user("bob", "bin", {"acct-b"})});
  EXPECT_TRUE(line.ok) << line.detail;
  EXPECT_EQ(line.detail,
            "Slurm accepts calls as daemon (associations: acct-a, acct-b), bin (associations: acct-b) (a token minted "
            "for each from TUNEPLANE_SLURM_JWT_KEY_FILE)");
  for (const std::string minted : {"tuneplane", "daemon", "bin"}) {
    EXPECT_NE(std::find(m_minted.begin(), m_minted.end(), minted), m_minted.end()) << minted << " minted and told";
  }
  EXPECT_GE(m_sim->route_count("GET /slurmdb/v0.0.45/associations"), 2);
}

TEST_F(DoctorUsersTest, AUserWithoutAnAssociationOrWithoutOneForAMappedAccountIsNamedWithTheFix) {
  start({"--associations", "bin=acct-b"});
  const DoctorCheck line = run({user("bob", "bin", {"acct-b", "acct-c"}), user("carol", "daemon", {"acct-a"})});
  EXPECT_FALSE(line.ok);
  EXPECT_EQ(line.detail,
            "\"bob\" as bin: the map lets it charge acct-c, but slurmdbd holds no association of the user with it (it "
            "has acct-b; sacctmgr add user bin account=acct-c, or take them out of the map); \"carol\" as daemon: "
            "slurmdbd holds no association of the user (sacctmgr add user daemon account=acct-a)");
  EXPECT_EQ(line.fix,
            "add each user's associations in slurmdbd (sacctmgr), or fix the map (docs/deploy.md, step 6: MinJobAge and "
            "accounting)");
}

// 22.05 answers a user without associations with HTTP 500 and error 9003: that is "none", not
// a failed read.
TEST_F(DoctorUsersTest, On2205AUserWithoutAssociationsIsNamedAndTheOthersPass) {
  start({"--release", "22.05.8", "--associations", "bin=acct-b"});
  const DoctorCheck line = run({user("bob", "bin", {"acct-b"}), user("carol", "daemon", {"acct-a"})});
  EXPECT_FALSE(line.ok);
  EXPECT_EQ(line.detail,
            "\"carol\" as daemon: slurmdbd holds no association of the user (sacctmgr add user daemon "
            "account=acct-a)");
}

TEST_F(DoctorUsersTest, AKeyThatIsNotTheClustersIsRefusedForEveryUser) {
  start({"--associations", "bin=acct-b"});
  m_settings.jwt_key_file = secret_file("other.key", "not-the-cluster-key-000000000000");
  const DoctorCheck line = run({user("bob", "bin", {"acct-b"})});
  EXPECT_FALSE(line.ok);
  EXPECT_NE(line.detail.find("\"bob\" as bin: Slurm refused a call as the user"), std::string::npos) << line.detail;
  EXPECT_NE(line.fix.find("the cluster's jwt_key"), std::string::npos) << line.fix;
}

// Only SlurmUser (and root) may name another user in X-SLURM-USER-NAME.
TEST_F(DoctorUsersTest, ATokenFileActsForTheUsersOnlyWhenItIsSlurmUsers) {
  start({"--associations", "bin=acct-b"}, "tuneplane");
  const DoctorCheck ordinary = run({user("bob", "bin", {"acct-b"})});
  EXPECT_FALSE(ordinary.ok);
  EXPECT_NE(ordinary.detail.find("\"bob\" as bin: Slurm refused a call as the user"), std::string::npos)
      << ordinary.detail;
  EXPECT_NE(ordinary.fix.find("a token of SlurmUser or root"), std::string::npos) << ordinary.fix;

  m_settings.jwt_file = secret_file(
      "slurm.jwt", "SLURM_JWT=" + mint_hs256(m_sim->key(), "slurm", m_clock.now(), std::chrono::hours(1)) + "\n");
  m_settings.rest_user = "slurm";
  const DoctorCheck slurm_user = run({user("bob", "bin", {"acct-b"})});
  EXPECT_TRUE(slurm_user.ok) << slurm_user.detail;
  EXPECT_NE(slurm_user.detail.find("each user named in X-SLURM-USER-NAME"), std::string::npos) << slurm_user.detail;
  EXPECT_TRUE(m_minted.empty()) << "a token file mints nothing";
}

TEST_F(DoctorUsersTest, WithoutAccountingOnlyTheIdentityIsChecked) {
  start({"--no-accounting"});
  const DoctorCheck line = run({user("bob", "bin", {"acct-b"})});
  EXPECT_TRUE(line.ok) << line.detail;
  EXPECT_EQ(line.detail,
            "Slurm accepts calls as bin (a token minted for each from TUNEPLANE_SLURM_JWT_KEY_FILE); no accounting: no "
            "association to check");
}

}  // namespace
}  // namespace tpslurm::slurm
