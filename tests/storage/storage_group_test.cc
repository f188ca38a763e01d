#include "storage/storage_group.h"

#include <grp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "base/digest.h"
#include "base/file_system.h"
#include "storage/attempt_directory.h"
#include "storage/job_credential.h"
#include "storage/memory_hash_cache.h"
#include "sample_layout.h"
#include "support/temp_dir.h"

namespace tpslurm::storage {
namespace {

using testing::TempDir;
using testing::write_test_file;

struct Owner {
  unsigned mode = 0;
  gid_t group = 0;
};

Owner owner_of(const std::string& path) {
  struct stat info {};
  EXPECT_EQ(::lstat(path.c_str(), &info), 0) << path;
  return {info.st_mode & 07777u, info.st_gid};
}

// A group this process may give its files that is not its own: as root any group; otherwise
// one of its supplementary groups. Without one the test cannot show anything, so it fails.
std::string other_group() {
  if (::geteuid() == 0) {
    for (const char* name : {"nogroup", "daemon", "users"}) {
      if (::getgrnam(name) != nullptr) return name;
    }
  }
  gid_t groups[64];
  const int count = ::getgroups(64, groups);
  for (int i = 0; i < count; ++i) {
    if (groups[i] == ::getegid()) continue;
    if (const struct group* entry = ::getgrgid(groups[i])) return entry->gr_name;
  }
  ADD_FAILURE() << "no group other than this process's own to test with";
  return "";
}

gid_t gid_of(const std::string& name) {
  const struct group* entry = ::getgrnam(name.c_str());
  return entry == nullptr ? static_cast<gid_t>(-1) : entry->gr_gid;
}

TEST(StorageGroupTest, NoGroupMeansTheOwnersAlone) {
  auto group = resolve_storage_group("");
  ASSERT_TRUE(group.ok());
  EXPECT_FALSE(group->has_value());
}

TEST(StorageGroupTest, AnUnknownGroupIsRefusedByName) {
  auto group = resolve_storage_group("no-such-group-tp");
  ASSERT_FALSE(group.ok());
  EXPECT_EQ(group.error().message(), "TUNEPLANE_STORAGE_GROUP \"no-such-group-tp\" is not a group on this host");
}

TEST(StorageGroupTest, NewDirectoriesGetExactlyTheModeAndTheGroupWhateverTheUmask) {
  TempDir root;
  const std::string group = other_group();
  const mode_t old_umask = ::umask(077);
  const Status made = make_directories(root.file("a/b/c"), 02750, gid_of(group));
  ::umask(old_umask);
  ASSERT_TRUE(made.ok()) << made.error().message();
  for (const char* dir : {"a", "a/b", "a/b/c"}) {
    EXPECT_EQ(owner_of(root.file(dir)).mode, 02750u) << dir;
    EXPECT_EQ(owner_of(root.file(dir)).group, gid_of(group)) << dir;
  }
}

class SharedAttemptTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write_test_file(m_root.file("runtimes/img.sqsh"), "image bytes");
    m_group = other_group();
  }

  model::AttemptLayout layout() const {
    model::AttemptLayout c = sample_layout(m_root.path(), "j2", model::FileAccess::shared_group, "tok");
    c.group = m_group;
    return c;
  }

  TempDir m_root;
  std::string m_group;
};

// The job user (a member of the group) reads what its attempt runs and writes only logs/ and
// scratch/; the job's own credential stays the service account's alone; others get nothing.
TEST_F(SharedAttemptTest, EverythingGetsTheGroupAndTheSharedModes) {
  auto credential = write_job_credential(m_root.path(), "j2", "tok", "hmac-key", m_group);
  ASSERT_TRUE(credential.ok()) << credential.error().message();
  MemoryHashCache cache;
  ArtifactHasher hasher(cache);
  const std::string dir = m_root.file("slurm/jobs/j2/attempts/1");
  auto written = write_attempt_directory(dir, layout(), hasher);
  ASSERT_TRUE(written.ok()) << written.error().message();

  const gid_t gid = gid_of(m_group);
  const std::pair<const char*, unsigned> expected[] = {{"slurm", 0750},
                                                       {"slurm/jobs", 0750},
                                                       {"slurm/jobs/j2", 0750},
                                                       {"slurm/jobs/j2/attempts", 0750},
                                                       {"slurm/jobs/j2/attempts/1", 0750},
                                                       {"slurm/jobs/j2/attempts/1/logs", 02770},
                                                       {"slurm/jobs/j2/attempts/1/scratch", 02770},
                                                       {"slurm/jobs/j2/attempts/1/credentials", 0750},
                                                       {"slurm/jobs/j2/attempts/1/job.sh", 0440},
                                                       {"slurm/jobs/j2/attempts/1/env", 0440},
                                                       {"slurm/jobs/j2/attempts/1/credentials/ingest_token", 0440},
                                                       {"slurm/jobs/j2/attempts/1/manifest.json", 0440}};
  for (const auto& [path, mode] : expected) {
    const Owner owner = owner_of(m_root.file(path));
    EXPECT_EQ(owner.mode, mode) << path;
    EXPECT_EQ(owner.group, gid) << path;
  }
  EXPECT_EQ(owner_of(m_root.file("slurm/jobs/j2/credentials")).mode, 0700u);
  EXPECT_EQ(owner_of(m_root.file("slurm/jobs/j2/credentials/ingest_token")).mode, 0400u);
  EXPECT_TRUE(verify_manifest(dir).ok());
}

TEST_F(SharedAttemptTest, AGroupThatIsGoneFailsBeforeAnythingIsWritten) {
  model::AttemptLayout c = layout();
  c.group = "no-such-group-tp";
  MemoryHashCache cache;
  ArtifactHasher hasher(cache);
  const std::string dir = m_root.file("slurm/jobs/j2/attempts/1");
  auto written = write_attempt_directory(dir, c, hasher);
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().message(), "TUNEPLANE_STORAGE_GROUP \"no-such-group-tp\" is not a group on this host");
  EXPECT_FALSE(std::filesystem::exists(dir));
}

}  // namespace
}  // namespace tpslurm::storage
