// Per-user mode's files on this host's filesystem, with real users: the service account writes an
// attempt for one user's job; that user reads it and writes only logs/ and scratch/; another
// user reaches none of it; the service account seals and removes what the job made, without
// following what it planted. Each user acts in a child process of its own uid (the suite runs as
// root, as tools/test does): "sys" is the service account, "daemon" the job's user, "bin" another
// platform user. Only the uids matter here; that such accounts may not run jobs is the user
// map's rule (unix_user.h), not the storage's.
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <functional>
#include <iostream>

#include "base/digest.h"
#include "base/file_system.h"
#include "storage/sweep_array.h"
#include "storage/attempt_directory.h"
#include "storage/attempt_removal.h"
#include "storage/job_credential.h"
#include "storage/log_seal.h"
#include "storage/memory_hash_cache.h"
#include "storage/user_acl.h"
#include "sample_layout.h"
#include "support/temp_dir.h"

namespace tpslurm::storage {
namespace {

using testing::TempDir;
using testing::read_test_file;
using testing::write_test_file;

constexpr const char* kService = "sys";
constexpr const char* kJobUser = "daemon";
constexpr const char* kOtherUser = "bin";

const struct passwd& user(const char* name) {
  const struct passwd* found = ::getpwnam(name);
  if (found == nullptr) {
    std::cerr << "no user " << name << " on this host\n";
    std::abort();
  }
  return *found;
}

// `body` run as `name` (its uid, its primary group, no other groups) in a child process; its
// result is the child's exit status (an errno, or 0), 255 when the child could not become the user.
int as_user(const char* name, const std::function<int()>& body) {
  const struct passwd& who = user(name);
  const uid_t uid = who.pw_uid;
  const gid_t gid = who.pw_gid;
  const pid_t child = ::fork();
  if (child == 0) {
    if (::setgroups(0, nullptr) != 0 || ::setgid(gid) != 0 || ::setuid(uid) != 0) ::_exit(255);
    ::_exit(body());
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 254;
}

int open_errno(const std::string& path, int flags, mode_t mode = 0) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
  if (fd < 0) return errno;
  ::close(fd);
  return 0;
}

int list_errno(const std::string& path) {
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) return errno;
  ::closedir(dir);
  return 0;
}

unsigned mode_of(const std::string& path) {
  struct stat info {};
  EXPECT_EQ(::lstat(path.c_str(), &info), 0) << path;
  return info.st_mode & 07777u;
}

class PerUserFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::geteuid(), 0u) << "this test acts as three users; run it as root (tools/test does)";
    ASSERT_EQ(::chmod(m_root.path().c_str(), 0711), 0);
    write_test_file(m_root.file("runtimes/img.sqsh"), "image bytes", std::filesystem::perms(0644));
    ASSERT_EQ(::chmod(m_root.file("runtimes").c_str(), 0755), 0);
    // The storage root is the service account's, as on a site.
    ASSERT_EQ(::chown(m_root.path().c_str(), user(kService).pw_uid, user(kService).pw_gid), 0);
  }

  model::AttemptLayout layout() const {
    model::AttemptLayout c =
        sample_layout(m_root.path(), "j1", model::FileAccess::per_user, {}, job_credential());
    c.unix_user = kJobUser;
    return c;
  }

  // The service account writes the job's credential and its first attempt.
  void write_as_service() {
    const int written = as_user(kService, [&] {
      auto credential = write_job_credential(m_root.path(), "j1", "secret-token", "hmac-key", {},
                                             model::IdentityMode::per_user);
      if (!credential.ok()) {
        std::cerr << credential.error().message() << "\n";
        return 1;
      }
      MemoryHashCache cache;
      ArtifactHasher hasher(cache);
      auto attempt = write_attempt_directory(attempt_dir(), layout(), hasher);
      if (!attempt.ok()) std::cerr << attempt.error().message() << "\n";
      return attempt.ok() ? 0 : 2;
    });
    ASSERT_EQ(written, 0);
  }

  std::string attempt_dir() const { return m_root.file("slurm/jobs/j1/attempts/1"); }
  std::string in_attempt(const std::string& name) const { return attempt_dir() + "/" + name; }
  std::string job_credential() const { return m_root.file("slurm/jobs/j1/credentials/ingest_token"); }

  TempDir m_root;
};

TEST_F(PerUserFilesTest, TheTreeIsPassableTheJobsDirectoriesAreTheUsersAndNothingIsTheGroups) {
  write_as_service();
  const uid_t job_user = user(kJobUser).pw_uid;
  const std::tuple<std::string, unsigned, std::optional<unsigned>> expected[] = {
      {"slurm", 0711, std::nullopt},
      {"slurm/jobs", 0711, std::nullopt},
      {"slurm/jobs/j1", 0710, 1},
      {"slurm/jobs/j1/credentials", 0700, std::nullopt},
      {"slurm/jobs/j1/credentials/ingest_token", 0400, std::nullopt},
      {"slurm/jobs/j1/attempts", 0710, 1},
      {"slurm/jobs/j1/attempts/1", 0750, 5},
      {"slurm/jobs/j1/attempts/1/logs", 0770, 7},
      {"slurm/jobs/j1/attempts/1/scratch", 0770, 7},
      {"slurm/jobs/j1/attempts/1/credentials", 0750, 5},
      {"slurm/jobs/j1/attempts/1/credentials/ingest_token", 0440, 4},
      {"slurm/jobs/j1/attempts/1/job.sh", 0440, 4},
      {"slurm/jobs/j1/attempts/1/manifest.json", 0400, std::nullopt}};
  for (const auto& [path, mode, entry] : expected) {
    EXPECT_EQ(mode_of(m_root.file(path)), mode) << path;
    auto found = user_entry(m_root.file(path), job_user);
    ASSERT_TRUE(found.ok()) << found.error().message();
    EXPECT_EQ(*found, entry) << path;
  }
  EXPECT_TRUE(verify_manifest(attempt_dir()).ok());
}

TEST_F(PerUserFilesTest, TheJobsUserReadsItsAttemptAndWritesOnlyLogsAndScratch) {
  write_as_service();
  EXPECT_EQ(as_user(kJobUser, [&] { return open_errno(in_attempt("job.sh"), O_RDONLY); }), 0);
  EXPECT_EQ(as_user(kJobUser, [&] { return open_errno(in_attempt("credentials/ingest_token"), O_RDONLY); }), 0);
  EXPECT_EQ(as_user(kJobUser, [&] { return list_errno(attempt_dir()); }), 0);
  EXPECT_EQ(as_user(kJobUser, [&] { return open_errno(in_attempt("logs/out"), O_WRONLY | O_CREAT, 0644); }), 0);
  EXPECT_EQ(as_user(kJobUser, [&] { return open_errno(in_attempt("scratch/data"), O_WRONLY | O_CREAT, 0644); }), 0);
  // Not the attempt's own files, the manifest, the job's credential or the other jobs.
  EXPECT_EQ(as_user(kJobUser, [&] { return open_errno(in_attempt("job.sh"), O_WRONLY); }), EACCES);
  EXPECT_EQ(as_user(kJobUser, [&] { return open_errno(in_attempt("new"), O_WRONLY | O_CREAT, 0644); }), EACCES);
  EXPECT_EQ(as_user(kJobUser, [&] { return open_errno(in_attempt("manifest.json"), O_RDONLY); }), EACCES);
  EXPECT_EQ(as_user(kJobUser, [&] { return open_errno(job_credential(), O_RDONLY); }), EACCES);
  EXPECT_EQ(as_user(kJobUser, [&] { return list_errno(m_root.file("slurm/jobs")); }), EACCES);
  EXPECT_EQ(as_user(kJobUser, [&] { return list_errno(m_root.file("slurm/jobs/j1")); }), EACCES);
}

TEST_F(PerUserFilesTest, AnotherUserReachesNothingOfTheJob) {
  write_as_service();
  ASSERT_EQ(as_user(kJobUser, [&] { return open_errno(in_attempt("logs/out"), O_WRONLY | O_CREAT, 0666); }), 0);
  for (const std::string& path : {in_attempt("job.sh"), in_attempt("env"), in_attempt("credentials/ingest_token"),
                                  in_attempt("logs/out"), job_credential()}) {
    EXPECT_EQ(as_user(kOtherUser, [&] { return open_errno(path, O_RDONLY); }), EACCES) << path;
  }
  for (const std::string& path : {attempt_dir(), in_attempt("logs"), in_attempt("scratch")}) {
    EXPECT_EQ(as_user(kOtherUser, [&] { return list_errno(path); }), EACCES) << path;
  }
  EXPECT_EQ(as_user(kOtherUser, [&] { return open_errno(in_attempt("scratch/x"), O_WRONLY | O_CREAT, 0644); }),
            EACCES);
}

// What the job makes in logs/ and scratch/ (a file, a directory, a link to the job's own
// credential) is sealed and removed by the service account, and the link is never followed.
TEST_F(PerUserFilesTest, TheServiceSealsAndRemovesWhatTheJobMadeWithoutFollowingItsLinks) {
  write_as_service();
  ASSERT_EQ(as_user(kJobUser,
                    [&] {
                      if (int e = open_errno(in_attempt("logs/out"), O_WRONLY | O_CREAT, 0666)) return e;
                      if (::mkdir(in_attempt("scratch/deep").c_str(), 0777) != 0) return errno;
                      if (int e = open_errno(in_attempt("scratch/deep/f"), O_WRONLY | O_CREAT, 0666)) return e;
                      if (::symlink(job_credential().c_str(), in_attempt("scratch/evil").c_str()) != 0) return errno;
                      return 0;
                    }),
            0);
  const int sealed = as_user(kService, [&] {
    auto seal = seal_logs(attempt_dir());
    if (!seal.ok()) std::cerr << seal.error().message() << "\n";
    return seal.ok() && seal->files.size() == 1 && seal->files[0].name == "out" ? 0 : 1;
  });
  EXPECT_EQ(sealed, 0);
  const int removed = as_user(kService, [&] {
    WorkSlice slice = WorkSlice::unlimited();
    auto removal = remove_staging(attempt_dir(), slice);
    if (!removal.ok()) std::cerr << removal.error().message() << "\n";
    return removal.ok() && removal->done ? 0 : 1;
  });
  EXPECT_EQ(removed, 0);
  EXPECT_FALSE(std::filesystem::exists(in_attempt("scratch")));
  EXPECT_EQ(read_test_file(job_credential()), "secret-token");
  // The seal closed logs/ to the job's user too: its entry is masked by logs/'s mode now.
  EXPECT_EQ(as_user(kJobUser, [&] { return open_errno(in_attempt("logs/more"), O_WRONLY | O_CREAT, 0644); }),
            EACCES);
}

TEST_F(PerUserFilesTest, AUserThatIsGoneFailsBeforeAnythingIsWritten) {
  model::AttemptLayout c = layout();
  c.unix_user = "no-such-user-tp";
  c.files.pop_back();
  MemoryHashCache cache;
  ArtifactHasher hasher(cache);
  auto written = write_attempt_directory(attempt_dir(), c, hasher);
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().message(), "the job's Unix user \"no-such-user-tp\" does not exist on this host");
  EXPECT_FALSE(std::filesystem::exists(m_root.file("slurm")));
}

// Under the unit's umask too (0077), which would narrow a probe made with mkdir's mode alone.
TEST(UserAclTest, ThisHostsFilesystemKeepsAnAclNamingAUser) {
  TempDir dir;
  const mode_t old_umask = ::umask(077);
  const Status supported = check_acl_support(dir.path(), user(kJobUser).pw_uid);
  ::umask(old_umask);
  EXPECT_TRUE(supported.ok()) << supported.error().message();
}

}  // namespace
}  // namespace tpslurm::storage

namespace tpslurm::storage {
namespace {

// A sweep's job array: its directory holds the array's script and a link per task to the
// run's attempt. The runs' user reads the script and reaches its attempt's logs/ through the
// link, as slurmstepd does for --output; it writes nothing in the array's directory; another user reaches
// nothing.
TEST_F(PerUserFilesTest, TheRunsUserReachesItsAttemptThroughTheArrayAndWritesNothingThere) {
  write_as_service();
  const std::string array = sweep_array_dir(m_root.path(), "sweep-1", 1);
  const int written = as_user(kService, [&] {
    auto made = write_sweep_array(array, {"#!/bin/bash\n", {attempt_dir()}, {}, kJobUser});
    if (!made.ok()) std::cerr << made.error().message() << "\n";
    return made.ok() ? 0 : 1;
  });
  ASSERT_EQ(written, 0);
  EXPECT_EQ(mode_of(m_root.file("slurm/sweeps")), 0710u);
  EXPECT_EQ(mode_of(array), 0750u);
  EXPECT_EQ(mode_of(array + "/job.sh"), 0440u);
  EXPECT_EQ(as_user(kJobUser, [&] { return open_errno(array + "/job.sh", O_RDONLY); }), 0);
  EXPECT_EQ(as_user(kJobUser, [&] { return open_errno(array + "/tasks/0/logs/batch.out", O_WRONLY | O_CREAT, 0644); }),
            0);
  EXPECT_EQ(as_user(kJobUser, [&] { return open_errno(array + "/new", O_WRONLY | O_CREAT, 0644); }), EACCES);
  EXPECT_EQ(as_user(kJobUser, [&] { return open_errno(array + "/tasks/1", O_WRONLY | O_CREAT, 0644); }), EACCES);
  EXPECT_EQ(as_user(kJobUser, [&] { return open_errno(array + "/job.sh", O_WRONLY); }), EACCES);
  EXPECT_EQ(as_user(kOtherUser, [&] { return open_errno(array + "/job.sh", O_RDONLY); }), EACCES);
  EXPECT_EQ(as_user(kOtherUser, [&] { return list_errno(array + "/tasks"); }), EACCES);
  EXPECT_TRUE(verify_sweep_array(array, {"#!/bin/bash\n", {attempt_dir()}, {}, kJobUser}).ok());
}

}  // namespace
}  // namespace tpslurm::storage
