// Per-user mode on the real Slurm 22.05 with slurmdbd (tools/test's accounting cluster, whose
// tools/local-slurm creates two ordinary users, each with an association under one account):
// each platform user's job runs as its Unix user, its files are that user's and the daemon's
// alone, and a cancel goes as the user. The daemon holds the cluster's root token and names each
// job's user in X-SLURM-USER-NAME.
//
// A job's container sees only its own attempt and mounts, so another job's files are out of its
// sight; what must hold beyond that is the filesystem's own answer to a job that escaped its
// container: a process of the other user on the node. The test asks it as that user (setpriv),
// on this host, which is the cluster's node.
#include <pwd.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "real_end_to_end_test.h"
#include "support/local_slurm.h"

namespace tpslurm::reconcile::testing {
namespace {

using model::AttemptState;
using model::JobPhase;

std::vector<std::string> comma_separated(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string word; std::getline(in, word, ',');) {
    if (!word.empty()) out.push_back(word);
  }
  return out;
}

uid_t uid_of(const std::string& name) {
  const struct passwd* entry = ::getpwnam(name.c_str());
  return entry == nullptr ? static_cast<uid_t>(-1) : entry->pw_uid;
}

class PerUserEndToEndTest : public EndToEndTest {
 protected:
  void SetUp() override {
    EndToEndTest::SetUp();
    if (HasFatalFailure()) return;
    ASSERT_EQ(env_of("TUNEPLANE_LOCAL_SLURM_ACCOUNTING"), "1") << "this test needs the cluster with slurmdbd";
    m_users = comma_separated(env_of("TUNEPLANE_LOCAL_SLURM_PER_USER_USERS"));
    ASSERT_EQ(m_users.size(), 2u) << "tools/local-slurm env names per-user mode's two users";
    m_account = env_of("TUNEPLANE_LOCAL_SLURM_PER_USER_ACCOUNT");
    write_user_map(m_account, m_account);
    m_extra_env["TUNEPLANE_IDENTITY_MODE"] = "per-user";
    m_extra_env["TUNEPLANE_USER_MAP_FILE"] = m_dir.file("users.json");
    // Every user passes through the test's directory to the storage root; nothing more.
    std::filesystem::permissions(m_dir.path(), std::filesystem::perms(0711));
  }

  // alice and bob, the two users, each allowed one account.
  void write_user_map(const std::string& alice_account, const std::string& bob_account) {
    tpslurm::testing::write_test_file(m_dir.file("users.json"),
                                      R"({"users": {"alice": {"unix_user": ")" + m_users[0] +
                                          R"(", "accounts": [")" + alice_account + R"("]},
        "bob": {"unix_user": ")" + m_users[1] + R"(", "accounts": [")" + bob_account + R"("]}}})",
                                      std::filesystem::perms(0644));
  }

  // slurmdbd's record of the job, as `sacct` shows it: "USER|ACCOUNT", once slurmdbd has it.
  std::string accounted(std::uint32_t job_id) {
    const std::string prefix = env_of("TUNEPLANE_LOCAL_SLURM_PREFIX");
    auto environment = tpslurm::testing::minimal_environment();
    environment["SLURM_CONF"] = env_of("TUNEPLANE_LOCAL_SLURM_CONF");
    for (int i = 0; i < 80; ++i) {
      const auto shown = tpslurm::testing::run_process({prefix.empty() ? std::string("sacct") : prefix + "/bin/sacct",
                                                        "-j", std::to_string(job_id), "-X", "-n", "-P", "-o",
                                                        "User,Account"},
                                                       environment);
      std::string line = shown.out.substr(0, shown.out.find('\n'));
      if (shown.exit_code == 0 && !line.empty()) return line;
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    return {};
  }

  // The line of `doctor` named `name`.
  std::string doctor_line(const std::string& name) {
    const std::string out = cli({"doctor"}).out;
    const std::size_t at = out.find(name + ": ");
    if (at == std::string::npos) return out;
    return out.substr(at - 6, out.find('\n', at) - (at - 6));
  }

  // Whether `user` can open `path` for reading, asked as that user on this host.
  bool readable_as(const std::string& user, const std::string& path) {
    const auto read = tpslurm::testing::run_process(
        {"setpriv", "--reuid=" + user, "--regid=" + user, "--clear-groups", "cat", path},
        tpslurm::testing::minimal_environment());
    return read.exit_code == 0;
  }

  bool listable_as(const std::string& user, const std::string& path) {
    const auto listed = tpslurm::testing::run_process(
        {"setpriv", "--reuid=" + user, "--regid=" + user, "--clear-groups", "ls", path},
        tpslurm::testing::minimal_environment());
    return listed.exit_code == 0;
  }

  std::vector<std::string> m_users;
  std::string m_account;
};

TEST_F(PerUserEndToEndTest, EachUsersJobRunsAsItsUserAndNoUserReachesTheOthersFiles) {
  m_user = "alice";
  submit("pu-alice", R"(["/bin/sh", "-c", "echo alice-was-here > /dev/stderr; sleep 60"])");
  m_user = "bob";
  submit("pu-bob", R"(["/bin/sh", "-c", "sleep 60"])");
  start_serve();
  for (const char* id : {"pu-alice", "pu-bob"}) {
    ASSERT_TRUE(eventually(id, [](const auto&, const auto& a) { return a.state == AttemptState::running; })) << id;
  }
  const auto alice = attempts("pu-alice").back();
  const auto bob = attempts("pu-bob").back();
  EXPECT_EQ(job("pu-alice").unix_user, m_users[0]);
  EXPECT_EQ(alice.unix_user, m_users[0]);

  // Slurm runs each as its user.
  for (const auto& [a, user] : {std::pair{alice, m_users[0]}, std::pair{bob, m_users[1]}}) {
    const auto shown = slurm_control({"show", "job", std::to_string(*a.slurm_job_id)});
    ASSERT_EQ(shown.exit_code, 0) << shown.err;
    EXPECT_NE(shown.out.find("UserId=" + user + "("), std::string::npos) << shown.out;
  }

  // What the job wrote is its user's; what the daemon wrote stays the daemon's, with the user's ACL.
  bool written_by_alice = false;
  for (const auto& entry : std::filesystem::directory_iterator(alice.attempt_dir + "/logs")) {
    struct stat info {};
    ASSERT_EQ(::lstat(entry.path().c_str(), &info), 0);
    if (info.st_uid == uid_of(m_users[0])) written_by_alice = true;
  }
  EXPECT_TRUE(written_by_alice) << "slurmstepd writes the job's output as the job's user";
  struct stat script {};
  ASSERT_EQ(::stat((alice.attempt_dir + "/job.sh").c_str(), &script), 0);
  EXPECT_EQ(script.st_uid, ::geteuid());

  // slurmdbd charges each job to its user and the user's account.
  EXPECT_EQ(accounted(*alice.slurm_job_id), m_users[0] + "|" + m_account);
  EXPECT_EQ(accounted(*bob.slurm_job_id), m_users[1] + "|" + m_account);

  // Each user reads its own attempt; the other reads nothing of it.
  const std::string credential = alice.attempt_dir + "/credentials/ingest_token";
  EXPECT_TRUE(readable_as(m_users[0], alice.attempt_dir + "/env"));
  EXPECT_TRUE(readable_as(m_users[0], credential));
  for (const std::string& path : {alice.attempt_dir + "/env", alice.attempt_dir + "/job.sh", credential,
                                  job("pu-alice").credential_path}) {
    EXPECT_FALSE(readable_as(m_users[1], path)) << m_users[1] << " read " << path;
  }
  for (const std::string& path : {alice.attempt_dir, alice.attempt_dir + "/logs", alice.attempt_dir + "/scratch"}) {
    EXPECT_FALSE(listable_as(m_users[1], path)) << m_users[1] << " listed " << path;
  }
  for (const auto& entry : std::filesystem::directory_iterator(alice.attempt_dir + "/logs")) {
    EXPECT_FALSE(readable_as(m_users[1], entry.path())) << m_users[1] << " read " << entry.path();
  }
  EXPECT_FALSE(readable_as(m_users[0], bob.attempt_dir + "/env")) << "nor the other way round";

  // A cancel goes as the job's user: slurmctld logs the uid that asked.
  ASSERT_EQ(cli({"cancel", "pu-alice", "--reason", "done"}).exit_code, 0);
  ASSERT_TRUE(closed_in("pu-alice", JobPhase::cancelled)) << "phase " << model::to_string(job("pu-alice").phase);
  std::ifstream log(env_of("TUNEPLANE_LOCAL_SLURM_STATE_DIR") + "/log/slurmctld.log");
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("JobId=" + std::to_string(*alice.slurm_job_id) + " uid " + std::to_string(uid_of(m_users[0]))),
            std::string::npos)
      << "slurmctld's log names no kill of the job by " << m_users[0];
}

// doctor checks the Slurm side of each mapped user: a call as the user (the root token naming it
// in X-SLURM-USER-NAME) and the user's associations in slurmdbd, read as the user.
TEST_F(PerUserEndToEndTest, DoctorChecksThatSlurmActsAsEachUserAndHoldsItsAssociations) {
  EXPECT_EQ(doctor_line("Slurm users"),
            "ok    Slurm users: Slurm accepts calls as " + m_users[0] + " (associations: " + m_account + "), " +
                m_users[1] + " (associations: " + m_account + ") (the token file's token, each user named in "
                "X-SLURM-USER-NAME)");
  write_user_map(m_account, "tp-no-such-account");
  EXPECT_EQ(doctor_line("Slurm users"),
            "FAIL  Slurm users: \"bob\" as " + m_users[1] + ": the map lets it charge tp-no-such-account, but "
            "slurmdbd holds no association of the user with it (it has " + m_account + "; sacctmgr add user " +
                m_users[1] + " account=tp-no-such-account, or take them out of the map); fix: add each user's "
                "associations in slurmdbd (sacctmgr), or fix the map (docs/deploy.md, step 6: MinJobAge and "
                "accounting)");
}

// With the cluster's key instead of the root token, the daemon mints a token for each user: the
// real slurmrestd and slurmctld accept each (doctor's call and associations as the user, then a
// job submitted, identified, released and cancelled as it), and each mint is journaled.
TEST_F(PerUserEndToEndTest, WithTheClustersKeyEachUserActsWithATokenMintedForIt) {
  const std::string key = m_dir.file("jwt.key");
  std::filesystem::copy_file(env_of("TUNEPLANE_LOCAL_SLURM_STATE_DIR") + "/client/jwt_hs256.key", key);
  std::filesystem::permissions(key, std::filesystem::perms::owner_read, std::filesystem::perm_options::replace);
  m_extra_env["TUNEPLANE_SLURM_JWT_KEY_FILE"] = key;
  m_unset_env.insert("TUNEPLANE_SLURM_JWT_FILE");
  EXPECT_EQ(doctor_line("Slurm users"),
            "ok    Slurm users: Slurm accepts calls as " + m_users[0] + " (associations: " + m_account + "), " +
                m_users[1] + " (associations: " + m_account + ") (a token minted for each from "
                "TUNEPLANE_SLURM_JWT_KEY_FILE)");

  m_user = "alice";
  submit("pu-minted", R"(["/bin/sh", "-c", "sleep 60"])");
  start_serve();
  ASSERT_TRUE(eventually("pu-minted", [](const auto&, const auto& a) { return a.state == AttemptState::running; }));
  const auto a = attempts("pu-minted").back();
  const auto shown = slurm_control({"show", "job", std::to_string(*a.slurm_job_id)});
  EXPECT_NE(shown.out.find("UserId=" + m_users[0] + "("), std::string::npos) << shown.out;
  ASSERT_EQ(cli({"cancel", "pu-minted", "--reason", "done"}).exit_code, 0);
  ASSERT_TRUE(closed_in("pu-minted", JobPhase::cancelled)) << "phase " << model::to_string(job("pu-minted").phase);

  const std::string mints = cli({"audit", "--mints"}).out;
  for (const std::string& user : m_users) {
    EXPECT_NE(mints.find(user), std::string::npos) << user << " has no journaled mint:\n" << mints;
  }
}

}  // namespace
}  // namespace tpslurm::reconcile::testing
