// The users-and-files check, with the accounts every Debian system has: root (this test runs
// as root, as CI does), nobody (primary group nogroup) and the group daemon.
#include "storage/job_access.h"

#include <grp.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/temp_dir.h"

namespace tpslurm::storage {
namespace {

using testing::TempDir;
namespace fs = std::filesystem;

class JobAccessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::geteuid(), 0u) << "these cases need the service account to be root (as in CI)";
    m_settings.storage_root = m_root.path();
  }

  JobAccessCheck check(const std::string& job_user, const std::string& group = "") {
    m_settings.rest_user = job_user;
    m_settings.storage_group = group;
    return check_job_access(m_settings);
  }

  TempDir m_root;
  model::Settings m_settings;
};

TEST_F(JobAccessTest, OneUserNeedsNoGroup) {
  const auto result = check("root");
  EXPECT_TRUE(result.ok) << result.detail;
  EXPECT_EQ(result.detail, "jobs run as root, the daemon's own user; attempts are the owner's alone");
}

TEST_F(JobAccessTest, TwoUsersWithoutAGroupCannotWork) {
  const auto result = check("nobody");
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.detail,
            "jobs run as nobody but the daemon runs as root and TUNEPLANE_STORAGE_GROUP is not set: the jobs cannot "
            "read their env or credential, nor write their logs");
  EXPECT_EQ(result.fix, "create a group whose only members are root and nobody, and set TUNEPLANE_STORAGE_GROUP to it");
}

TEST_F(JobAccessTest, AnUnknownJobUserIsReported) {
  const auto result = check("no-such-user-tp");
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.detail,
            "the job user no-such-user-tp is not known on this host, so its access to the attempts cannot be checked");
}

TEST_F(JobAccessTest, AGroupTheJobUserIsInPasses) {
  const auto result = check("nobody", "nogroup");
  EXPECT_TRUE(result.ok) << result.detail;
  EXPECT_EQ(result.detail,
            "jobs run as nobody, the daemon as root; attempts are shared through the group nogroup and closed to "
            "others");
}

TEST_F(JobAccessTest, AGroupWithoutTheJobUserFails) {
  const auto result = check("nobody", "daemon");
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.detail,
            "the job user nobody is not a member of daemon: its jobs cannot read their env or credential, nor write "
            "their logs");
  EXPECT_EQ(result.fix, "add nobody to daemon (usermod -aG daemon nobody)");
}

TEST_F(JobAccessTest, AProgramTreeOthersCanReadOrWithAnotherGroupFails) {
  fs::create_directory(m_root.file("slurm"));
  ASSERT_EQ(::chown(m_root.file("slurm").c_str(), 0, ::getgrnam("nogroup")->gr_gid), 0);
  fs::permissions(m_root.file("slurm"), fs::perms(0750));
  EXPECT_TRUE(check("nobody", "nogroup").ok);
  fs::permissions(m_root.file("slurm"), fs::perms(0755));
  const auto readable = check("nobody", "nogroup");
  EXPECT_FALSE(readable.ok);
  EXPECT_EQ(readable.detail, m_root.file("slurm") +
                                 " has group id 65534 and mode 0755: the job user cannot reach its "
                                 "attempts, or others can");
  EXPECT_EQ(readable.fix,
            "chgrp -R nogroup " + m_root.file("slurm") + " && chmod -R o-rwx,g+rX " + m_root.file("slurm"));
  fs::permissions(m_root.file("slurm"), fs::perms(0750));
  ASSERT_EQ(::chown(m_root.file("slurm").c_str(), 0, 0), 0);
  EXPECT_FALSE(check("nobody", "nogroup").ok);
}

// Per-user mode: the storage root must keep ACLs (ext4 here does), and the program's tree must be
// closed to listing; the job user and a group play no part.
TEST_F(JobAccessTest, PerUserModeChecksTheRootsAclsAndATreeClosedToListing) {
  m_settings.identity_mode = model::IdentityMode::per_user;
  const auto empty = check("no-such-user-tp");
  EXPECT_TRUE(empty.ok) << empty.detail;
  EXPECT_EQ(empty.detail, "per-user mode: " + m_root.path() +
                              " keeps ACLs naming a user; each job's files are its user's and root's alone");
  fs::create_directories(m_root.file("slurm/jobs"));
  fs::permissions(m_root.file("slurm"), fs::perms(0711));
  fs::permissions(m_root.file("slurm/jobs"), fs::perms(0755));
  const auto listable = check("no-such-user-tp");
  EXPECT_FALSE(listable.ok);
  EXPECT_EQ(listable.detail, m_root.file("slurm/jobs") + " has mode 0755: other users may list or change the jobs there");
  EXPECT_EQ(listable.fix, "chmod 0711 " + m_root.file("slurm/jobs") +
                              " (every job's user passes through it; none may list it)");
  fs::permissions(m_root.file("slurm/jobs"), fs::perms(0711));
  EXPECT_TRUE(check("no-such-user-tp").ok);
  EXPECT_EQ(std::distance(fs::directory_iterator(m_root.file("slurm")), fs::directory_iterator()), 1)
      << "the probe is removed";
}

class ImageAccessTest : public JobAccessTest {
 protected:
  void SetUp() override {
    JobAccessTest::SetUp();
    m_settings.rest_user = "nobody";
    fs::create_directories(m_root.file("runtimes/v1"));
    fs::permissions(m_root.file("runtimes"), fs::perms(0755));
    fs::permissions(m_root.file("runtimes/v1"), fs::perms(0755));
    std::ofstream(m_root.file("runtimes/v1/a.sqsh")) << "image";
    fs::permissions(m_root.file("runtimes/v1/a.sqsh"), fs::perms(0644));
  }

  JobAccessCheck images() { return check_image_access(m_settings, {"runtimes/v1/a.sqsh", "runtimes/b.sif"}); }

  std::string detail_for(const std::string& path, const std::string& why) {
    return "the job user can change " + m_root.file(path) + " (" + why +
           "), on the way to the runtime image runtimes/v1/a.sqsh: a job could replace the image between the nodes' "
           "check and the runtime's open";
  }
};

TEST_F(ImageAccessTest, ImagesAndDirectoriesOfAnotherAccountPass) {
  const auto result = images();
  EXPECT_TRUE(result.ok) << result.detail;
  EXPECT_EQ(result.detail, "the job user nobody can change none of the runtime images (2) nor the directories above them");
}

TEST_F(ImageAccessTest, AnImageTheJobUserOwnsFails) {
  const uid_t nobody = ::getpwnam("nobody")->pw_uid;
  ASSERT_EQ(::chown(m_root.file("runtimes/v1/a.sqsh").c_str(), nobody, 0), 0);
  const auto result = images();
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.detail, detail_for("runtimes/v1/a.sqsh", "the job user nobody owns it"));
  EXPECT_EQ(result.fix, "give " + m_root.file("runtimes/v1/a.sqsh") +
                            " to an account jobs do not run as, not writable by the job user (chown, chmod go-w)");
}

// Per-user mode: every mapped Unix user is a job user, and the one that can change an image is named.
TEST_F(ImageAccessTest, InPerUserModeNoMappedUserMayChangeAnImage) {
  const std::vector<std::string> users{"nobody", "daemon"};
  const auto clean = check_image_access(m_settings, {"runtimes/v1/a.sqsh", "runtimes/b.sif"}, users);
  EXPECT_TRUE(clean.ok) << clean.detail;
  EXPECT_EQ(clean.detail, "none of the 2 mapped Unix users can change a runtime image (2) or a directory above one");
  ASSERT_EQ(::chown(m_root.file("runtimes/v1/a.sqsh").c_str(), ::getpwnam("daemon")->pw_uid, 0), 0);
  const auto owned = check_image_access(m_settings, {"runtimes/v1/a.sqsh", "runtimes/b.sif"}, users);
  EXPECT_FALSE(owned.ok);
  EXPECT_EQ(owned.detail, "daemon: " + detail_for("runtimes/v1/a.sqsh", "the job user daemon owns it"));
}

TEST_F(ImageAccessTest, ADirectoryWritableByEveryoneOrTheJobUsersGroupFails) {
  fs::permissions(m_root.file("runtimes/v1"), fs::perms(0777));
  EXPECT_EQ(images().detail, detail_for("runtimes/v1", "it is writable by everyone"));
  fs::permissions(m_root.file("runtimes/v1"), fs::perms(0755));
  const gid_t nogroup = ::getgrnam("nogroup")->gr_gid;
  ASSERT_EQ(::chown(m_root.file("runtimes").c_str(), 0, nogroup), 0);
  fs::permissions(m_root.file("runtimes"), fs::perms(0775));
  EXPECT_EQ(images().detail, detail_for("runtimes", "it is writable by its group (id " + std::to_string(nogroup) +
                                                        "), which has the job user nobody"));
  fs::permissions(m_root.file("runtimes"), fs::perms(0755));
  EXPECT_TRUE(images().ok);
}

TEST_F(ImageAccessTest, TheStorageRootAndWhatALinkLeadsToCount) {
  const uid_t nobody = ::getpwnam("nobody")->pw_uid;
  TempDir elsewhere;
  ASSERT_EQ(::chown(elsewhere.path().c_str(), nobody, 0), 0);
  fs::remove_all(m_root.file("runtimes/v1"));
  fs::create_directory_symlink(elsewhere.path(), m_root.file("runtimes/v1"));
  EXPECT_EQ(images().detail, detail_for("runtimes/v1", "the job user nobody owns it"));
  ASSERT_EQ(::chown(m_root.path().c_str(), nobody, 0), 0);
  EXPECT_EQ(images().detail, "the job user can change " + m_root.path() +
                                 " (the job user nobody owns it), on the way to the runtime image runtimes/v1/a.sqsh: "
                                 "a job could replace the image between the nodes' check and the runtime's open");
}

// With one user for the daemon and the jobs, the job user owns the storage root.
TEST_F(ImageAccessTest, OneUserForDaemonAndJobsFails) {
  m_settings.rest_user = "root";
  EXPECT_FALSE(images().ok);
}

}  // namespace
}  // namespace tpslurm::storage
