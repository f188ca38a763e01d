#include "storage/attempt_directory.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>

#include "base/crash_point.h"
#include "base/digest.h"
#include "storage/memory_hash_cache.h"
#include "support/file_mode.h"
#include "support/temp_dir.h"

namespace tpslurm::storage {
namespace {

using testing::read_test_file;
using testing::TempDir;
using testing::write_test_file;
namespace fs = std::filesystem;

using tpslurm::testing::mode_of;

class AttemptDirectoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write_test_file(m_root.file("runtimes/img.sqsh"), "image bytes");
    write_test_file(m_root.file("slurm/jobs/j1/credentials/ingest_token"), "tok-secret", fs::perms::owner_read);
    m_dir = m_root.file("slurm/jobs/j1/attempts/1");
  }

  model::AttemptLayout contents(const std::string& script = "#!/bin/bash\nsrun true\n") const {
    model::AttemptLayout c;
    c.job_id = "j1";
    c.attempt = 1;
    c.submit_token = "0b6f8c1e-4d2a-4c1f-9a7e-3f1d2c4b5a69";
    c.image.registry_path = "runtimes/img.sqsh";
    c.image.local_path = m_root.file("runtimes/img.sqsh");
    c.image.sha256 = sha256_hex("image bytes");
    c.directories = {{"logs", 0750}, {"scratch", 0700}, {"credentials", 0700}};
    c.files = {{"job.sh", script, 0440, {}},
               {"env", "A=b\n", 0400, {}},
               {"credentials/ingest_token", {}, 0400, m_root.file("slurm/jobs/j1/credentials/ingest_token")}};
    c.logs = {{"batch", -1, "logs/batch.out", "logs/batch.err"}};
    return c;
  }

  Result<WriteOutcome> write(const model::AttemptLayout& c) { return write_attempt_directory(m_dir, c, m_hasher); }

  TempDir m_root;
  std::string m_dir;
  MemoryHashCache m_cache;
  ArtifactHasher m_hasher{m_cache};
};

TEST_F(AttemptDirectoryTest, WritesFilesWithTheirModesAndTheManifestLast) {
  auto written = write(contents());
  ASSERT_TRUE(written.ok()) << written.error().message();
  EXPECT_EQ(*written, WriteOutcome::written);
  EXPECT_EQ(read_test_file(m_dir + "/job.sh"), "#!/bin/bash\nsrun true\n");
  EXPECT_EQ(mode_of(m_dir + "/job.sh"), 0440u);
  EXPECT_EQ(mode_of(m_dir + "/env"), 0400u);
  EXPECT_EQ(read_test_file(m_dir + "/credentials/ingest_token"), "tok-secret");
  EXPECT_EQ(mode_of(m_dir + "/credentials/ingest_token"), 0400u);
  EXPECT_EQ(mode_of(m_dir + "/credentials"), 0700u);
  EXPECT_EQ(mode_of(m_dir + "/logs"), 0750u);
  EXPECT_EQ(mode_of(m_dir + "/scratch"), 0700u);
  auto manifest = read_manifest(m_dir);
  ASSERT_TRUE(manifest.ok()) << manifest.error().message();
  EXPECT_EQ(manifest->image_sha256, sha256_hex("image bytes"));
  ASSERT_EQ(manifest->files.size(), 3u);
  EXPECT_EQ(manifest->files[0].path, "credentials/ingest_token");
  EXPECT_EQ(manifest->files[2].sha256, sha256_hex("#!/bin/bash\nsrun true\n"));
  EXPECT_TRUE(verify_manifest(m_dir).ok());
  for (const auto& entry : fs::recursive_directory_iterator(m_dir)) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos) << entry.path();
  }
}

TEST_F(AttemptDirectoryTest, RefusesAMismatchedImageBeforeWritingAnything) {
  model::AttemptLayout c = contents();
  c.image.sha256 = std::string(64, '0');
  auto written = write(c);
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().message(), "image " + m_root.file("runtimes/img.sqsh") + ": expected sha256 " +
                                           std::string(64, '0') + ", found " + sha256_hex("image bytes"));
  EXPECT_FALSE(fs::exists(m_dir));
}

TEST_F(AttemptDirectoryTest, LeavesACompleteAttemptAlone) {
  ASSERT_TRUE(write(contents()).ok());
  const auto before = fs::last_write_time(m_dir + "/job.sh");
  auto again = write(contents());
  ASSERT_TRUE(again.ok()) << again.error().message();
  EXPECT_EQ(*again, WriteOutcome::already_complete);
  EXPECT_EQ(fs::last_write_time(m_dir + "/job.sh"), before);
}

TEST_F(AttemptDirectoryTest, NeverRewritesACompleteAttemptWithOtherContent) {
  ASSERT_TRUE(write(contents()).ok());
  auto other = write(contents("#!/bin/bash\nsrun false\n"));
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().message(), "attempt directory " + m_dir +
                                         " already holds a complete attempt with different content; a complete "
                                         "attempt is never rewritten (a retry is a new attempt number)");
  EXPECT_EQ(read_test_file(m_dir + "/job.sh"), "#!/bin/bash\nsrun true\n");
}

TEST_F(AttemptDirectoryTest, DiscardsAnIncompleteAttemptAndWritesItAgain) {
  fs::create_directories(m_dir + "/logs");
  write_test_file(m_dir + "/job.sh", "half a scr", fs::perms::owner_read);
  write_test_file(m_dir + "/stray", "left by a crash");
  auto written = write(contents());
  ASSERT_TRUE(written.ok()) << written.error().message();
  EXPECT_EQ(*written, WriteOutcome::rewritten);
  EXPECT_EQ(read_test_file(m_dir + "/job.sh"), "#!/bin/bash\nsrun true\n");
  EXPECT_FALSE(fs::exists(m_dir + "/stray"));
  EXPECT_TRUE(verify_manifest(m_dir).ok());
}

TEST_F(AttemptDirectoryTest, KeepsAnIncompleteAttemptThatHoldsEvidenceOfARun) {
  write_test_file(m_dir + "/logs/slurm-job.json", "{\"job_id\": 7}");
  auto written = write(contents());
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().kind(), ErrorKind::corrupt);
  EXPECT_EQ(written.error().message(),
            "attempt directory " + m_dir +
                " has no complete manifest but holds logs/slurm-job.json from a job that ran; it is not discarded "
                "automatically: inspect it and remove it by hand");
  EXPECT_TRUE(fs::exists(m_dir + "/logs/slurm-job.json"));
}

TEST_F(AttemptDirectoryTest, ACrashBeforeTheManifestLeavesADirectoryThatIsWrittenAgain) {
  // The child dies at the crash point, after the files and before the manifest.
  EXPECT_EXIT(
      {
        ::setenv("TUNEPLANE_CRASH_AT", "attempt_dir.before_manifest", 1);
        (void)write(contents());
        std::exit(0);
      },
      ::testing::ExitedWithCode(kCrashExitCode), "");
  EXPECT_TRUE(fs::exists(m_dir + "/job.sh"));
  EXPECT_FALSE(fs::exists(m_dir + "/manifest.json"));
  EXPECT_EQ(verify_manifest(m_dir).error().message(),
            "attempt " + m_dir + " has no manifest: it was never completely written");
  auto written = write(contents());
  ASSERT_TRUE(written.ok()) << written.error().message();
  EXPECT_EQ(*written, WriteOutcome::rewritten);
  EXPECT_TRUE(verify_manifest(m_dir).ok());
}

TEST_F(AttemptDirectoryTest, VerifyFindsAChangedFile) {
  ASSERT_TRUE(write(contents()).ok());
  fs::permissions(m_dir + "/env", fs::perms::owner_write, fs::perm_options::add);
  write_test_file(m_dir + "/env", "A=c\n", fs::perms::owner_read);
  const Status verified = verify_manifest(m_dir);
  ASSERT_FALSE(verified.ok());
  EXPECT_EQ(verified.error().message(), "attempt " + m_dir + ": env changed since it was written (expected sha256 " +
                                            sha256_hex("A=b\n") + ", found " + sha256_hex("A=c\n") + ")");
}

TEST_F(AttemptDirectoryTest, VerifyFindsAChangedMode) {
  ASSERT_TRUE(write(contents()).ok());
  fs::permissions(m_dir + "/env", fs::perms::group_read, fs::perm_options::add);
  EXPECT_EQ(verify_manifest(m_dir).error().message(), "attempt " + m_dir + ": env has mode 0440, expected 0400");
}

TEST_F(AttemptDirectoryTest, VerifyFindsAMissingFile) {
  ASSERT_TRUE(write(contents()).ok());
  fs::remove(m_dir + "/credentials/ingest_token");
  EXPECT_EQ(verify_manifest(m_dir).error().message(), "attempt " + m_dir +
                                                          ": credentials/ingest_token is missing (open " + m_dir +
                                                          "/credentials/ingest_token: No such file or directory)");
}

TEST_F(AttemptDirectoryTest, VerifyWithTheHasherAlsoChecksTheImage) {
  ASSERT_TRUE(write(contents()).ok());
  EXPECT_TRUE(verify_manifest(m_dir, m_hasher, m_root.path()).ok());
  write_test_file(m_root.file("runtimes/img.sqsh"), "new image!!");
  EXPECT_EQ(verify_manifest(m_dir, m_hasher, m_root.path()).error().message(),
            "image " + m_root.file("runtimes/img.sqsh") + ": expected sha256 " + sha256_hex("image bytes") +
                ", found " + sha256_hex("new image!!"));
}

}  // namespace
}  // namespace tpslurm::storage
