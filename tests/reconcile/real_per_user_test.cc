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
    const std::string account = env_of("TUNEPLANE_LOCAL_SLURM_PER_USER_ACCOUNT");
    tpslurm::testing::write_test_file(m_dir.file("users.json"),
                                      R"({"users": {"alice": {"unix_user": ")" + m_users[0] +
                                          R"(", "accounts": [")" + account + R"("]},
        "bob": {"unix_user": ")" + m_users[1] + R"(", "accounts": [")" + account + R"("]}}})",
                                      std::filesystem::perms(0644));
    m_extra_env["TUNEPLANE_IDENTITY_MODE"] = "per-user";
    m_extra_env["TUNEPLANE_USER_MAP_FILE"] = m_dir.file("users.json");
    // Every user passes through the test's directory to the storage root; nothing more.
    std::filesystem::permissions(m_dir.path(), std::filesystem::perms(0711));
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

}  // namespace
}  // namespace tpslurm::reconcile::testing
