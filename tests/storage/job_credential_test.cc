#include "storage/job_credential.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

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

TEST(JobCredentialTest, ADifferentTokenIsRefusedAndTheFileKept) {
  TempDir root;
  const std::string key(32, 'k');
  ASSERT_TRUE(write_job_credential(root.path(), "j1", "t1", key).ok());
  const auto second = write_job_credential(root.path(), "j1", "t2", key);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().message(),
            "job j1 already has a different ingest credential; a job's credential is written once");
  EXPECT_EQ(testing::read_test_file(root.path() + "/slurm/jobs/j1/credentials/ingest_token"), "t1");
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
// writes it alone; the same job twice is written once, a different token for it is refused;
// no temporary file is left beside any credential.
TEST(JobCredentialTest, ABatchWritesEachAsAloneAndLeavesNoTemporaryFile) {
  TempDir root;
  const std::string key(32, 'k');
  ASSERT_TRUE(write_job_credential(root.path(), "old", "t-old", key).ok());
  const auto results = write_job_credentials(
      root.path(), {{"a", "t-a"}, {"b", "t-b"}, {"a", "t-a"}, {"a", "t-other"}, {"old", "t-old"}, {"old", "t-new"}},
      key);
  ASSERT_EQ(results.size(), 6u);
  for (const std::size_t ok : {0u, 1u, 2u, 4u})
    ASSERT_TRUE(results[ok].ok()) << ok << ": " << results[ok].error().message();
  EXPECT_EQ(results[0]->path, root.path() + "/slurm/jobs/a/credentials/ingest_token");
  EXPECT_EQ(results[0]->hmac, hmac_sha256_hex(key, "t-a"));
  EXPECT_EQ(*results[2], *results[0]) << "the same job and token twice: written once";
  EXPECT_EQ(results[3].error().message(),
            "job a already has a different ingest credential; a job's credential is written once");
  EXPECT_EQ(results[5].error().message(),
            "job old already has a different ingest credential; a job's credential is written once");
  EXPECT_EQ(testing::read_test_file(results[1]->path), "t-b");
  EXPECT_EQ(testing::read_test_file(results[4]->path), "t-old");
  for (const char* job : {"a", "b", "old"}) {
    const std::string dir = root.path() + "/slurm/jobs/" + job + "/credentials";
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().filename());
    EXPECT_EQ(names, std::vector<std::string>{"ingest_token"}) << dir;
    struct stat info {};
    ASSERT_EQ(::stat((dir + "/ingest_token").c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0400u) << dir;
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
      dir.file("hmac.key") + " is accessible by group or others (mode 404); run: chmod 600 " + dir.file("hmac.key"));
}

}  // namespace
}  // namespace tpslurm::storage
