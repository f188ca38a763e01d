#include "storage/job_credential.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "base/digest.h"
#include "storage/secret_key.h"
#include "support/temp_dir.h"

namespace tpslurm::storage {
namespace {

using testing::TempDir;

TEST(JobCredentialTest, WritesTheTokenOnceReadOnly) {
  TempDir root;
  const std::string key(32, 'k');
  const auto ref = write_job_credential(root.path(), "j1", "secret-token", key);
  ASSERT_TRUE(ref.ok()) << ref.error().message();
  EXPECT_EQ(ref->path, root.path() + "/slurm/jobs/j1/credentials/ingest_token");
  EXPECT_EQ(ref->hmac, hmac_sha256_hex(key, "secret-token"));
  EXPECT_EQ(testing::read_test_file(ref->path), "secret-token");
  struct stat info {};
  ASSERT_EQ(::stat(ref->path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0400u);
}

TEST(JobCredentialTest, SameTokenAgainIsANoOp) {
  TempDir root;
  const std::string key(32, 'k');
  const auto first = write_job_credential(root.path(), "j1", "t", key);
  const auto second = write_job_credential(root.path(), "j1", "t", key);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*first, *second);
}

// A credential left by a commit that failed, or another writer's: never replaced; the new token
// goes beside it under a name of its own, and again to the same file.
TEST(JobCredentialTest, ADifferentTokenIsWrittenBesideTheFileAndTheFileKept) {
  TempDir root;
  const std::string key(32, 'k');
  const std::string dir = root.path() + "/slurm/jobs/j1/credentials/";
  ASSERT_TRUE(write_job_credential(root.path(), "j1", "t1", key).ok());
  const auto second = write_job_credential(root.path(), "j1", "t2", key);
  ASSERT_TRUE(second.ok()) << second.error().message();
  EXPECT_EQ(second->path, dir + "ingest_token." + hmac_sha256_hex(key, "t2").substr(0, 16));
  EXPECT_EQ(second->hmac, hmac_sha256_hex(key, "t2"));
  EXPECT_TRUE(verify_job_credential(*second, key).ok());
  EXPECT_EQ(testing::read_test_file(dir + "ingest_token"), "t1");
  const auto third = write_job_credential(root.path(), "j1", "t2", key);
  ASSERT_TRUE(third.ok()) << third.error().message();
  EXPECT_EQ(*third, *second);
  struct stat info {};
  ASSERT_EQ(::stat(second->path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0400u);
}

TEST(JobCredentialTest, VerifyNoticesATamperedFile) {
  TempDir root;
  const std::string key(32, 'k');
  const auto ref = write_job_credential(root.path(), "j1", "t1", key);
  ASSERT_TRUE(verify_job_credential(*ref, key).ok());
  std::filesystem::permissions(ref->path, std::filesystem::perms::owner_write, std::filesystem::perm_options::add);
  testing::write_test_file(ref->path, "evil");
  const Status status = verify_job_credential(*ref, key);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().kind(), ErrorKind::corrupt);
}

// Many at once, as the API's submissions that arrive together: each as write_job_credential
// writes it alone; the same job and token twice is written once, a different token for it
// beside it; no temporary file is left beside any credential.
TEST(JobCredentialTest, ABatchWritesEachAsAloneAndLeavesNoTemporaryFile) {
  TempDir root;
  const std::string key(32, 'k');
  ASSERT_TRUE(write_job_credential(root.path(), "old", "t-old", key).ok());
  const auto results = write_job_credentials(
      root.path(), {{"a", "t-a"}, {"b", "t-b"}, {"a", "t-a"}, {"a", "t-other"}, {"old", "t-old"}, {"old", "t-new"}},
      key);
  ASSERT_EQ(results.size(), 6u);
  for (std::size_t i = 0; i < results.size(); ++i)
    ASSERT_TRUE(results[i].ok()) << i << ": " << results[i].error().message();
  EXPECT_EQ(results[0]->path, root.path() + "/slurm/jobs/a/credentials/ingest_token");
  EXPECT_EQ(results[0]->hmac, hmac_sha256_hex(key, "t-a"));
  EXPECT_EQ(*results[2], *results[0]) << "the same job and token twice: written once";
  EXPECT_EQ(results[3]->path,
            root.path() + "/slurm/jobs/a/credentials/ingest_token." + hmac_sha256_hex(key, "t-other").substr(0, 16));
  EXPECT_EQ(results[5]->path,
            root.path() + "/slurm/jobs/old/credentials/ingest_token." + hmac_sha256_hex(key, "t-new").substr(0, 16));
  EXPECT_EQ(testing::read_test_file(results[1]->path), "t-b");
  EXPECT_EQ(testing::read_test_file(results[3]->path), "t-other");
  EXPECT_EQ(testing::read_test_file(results[4]->path), "t-old");
  EXPECT_EQ(testing::read_test_file(results[5]->path), "t-new");
  for (const auto& [job, expected] :
       {std::pair<std::string, std::vector<std::string>>{"a", {"ingest_token", results[3]->path}},
        {"b", {"ingest_token"}},
        {"old", {"ingest_token", results[5]->path}}}) {
    const std::string dir = root.path() + "/slurm/jobs/" + job + "/credentials";
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().filename());
    std::sort(names.begin(), names.end());
    std::vector<std::string> wanted;
    for (const auto& path : expected) wanted.push_back(std::filesystem::path(path).filename());
    EXPECT_EQ(names, wanted) << dir;
    for (const auto& name : names) {
      struct stat info {};
      ASSERT_EQ(::stat((dir + "/" + name).c_str(), &info), 0);
      EXPECT_EQ(info.st_mode & 0777, 0400u) << dir << "/" << name;
    }
  }
}

TEST(JobCredentialTest, AnEmptyBatchWritesNothing) {
  TempDir root;
  EXPECT_TRUE(write_job_credentials(root.path(), {}, std::string(32, 'k')).empty());
  EXPECT_FALSE(std::filesystem::exists(root.path() + "/slurm"));
}

TEST(SecretKeyTest, CreatedOnceThenReused) {
  TempDir dir;
  const auto first = load_or_create_secret_key(dir.file("hmac.key"));
  ASSERT_TRUE(first.ok()) << first.error().message();
  EXPECT_EQ(first->size(), 32u);
  EXPECT_EQ(*load_or_create_secret_key(dir.file("hmac.key")), *first);
}

TEST(SecretKeyTest, RefusesAKeyOthersCanRead) {
  TempDir dir;
  testing::write_test_file(dir.file("hmac.key"), std::string(32, 'x'),
                           std::filesystem::perms::owner_read | std::filesystem::perms::others_read);
  const auto key = load_or_create_secret_key(dir.file("hmac.key"));
  ASSERT_FALSE(key.ok());
  EXPECT_EQ(
      key.error().message(),
      dir.file("hmac.key") + " is accessible by group or others (mode 0404); run: chmod 600 " + dir.file("hmac.key"));
}

}  // namespace
}  // namespace tpslurm::storage
