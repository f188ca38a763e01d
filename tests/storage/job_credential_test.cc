#include "storage/job_credential.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

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
  EXPECT_EQ(key.error().message(), dir.file("hmac.key") + " is accessible by group or others (mode 404); run: chmod 600 " +
                                       dir.file("hmac.key"));
}

}  // namespace
}  // namespace tpslurm::storage
