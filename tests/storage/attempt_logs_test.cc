// An attempt's logs as its manifest lists them: selection by component and stream, a missing
// manifest, an unknown component, and manifest paths or links that would lead outside.
#include "storage/attempt_logs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "storage/manifest.h"
#include "support/temp_dir.h"

namespace tpslurm::storage {
namespace {

using testing::TempDir;
using testing::write_test_file;

class AttemptLogsTest : public ::testing::Test {
 protected:
  void write_manifest(std::vector<model::AttemptLog> logs) {
    Manifest manifest;
    manifest.job_id = "ft-logs";
    manifest.attempt = 1;
    manifest.submit_token = "token";
    manifest.image_path = "runtimes/x.sif";
    manifest.image_sha256 = std::string(64, 'a');
    manifest.logs = std::move(logs);
    write_test_file(dir.file(std::string(kManifestFile)), manifest_json(manifest));
  }

  // The layout of a two-component hetjob with a driver (tests/golden/hetjob-two-pools-ray).
  void hetjob() {
    write_manifest({{"batch", -1, "logs/batch.out", "logs/batch.err"},
                    {"component-0", 0, "logs/component-0.out", "logs/component-0.err"},
                    {"component-1", 1, "logs/component-1.out", "logs/component-1.err"},
                    {"program", 0, "logs/program.out", "logs/program.err"}});
    write_test_file(dir.file("logs/batch.out"), "batch says hi\n");
    write_test_file(dir.file("logs/batch.err"), "batch complains\n");
    write_test_file(dir.file("logs/component-0.out"), "");
    write_test_file(dir.file("logs/program.out"), "epoch 1\n");
  }

  static std::vector<std::string> names(const std::vector<AttemptLogFile>& files) {
    std::vector<std::string> out;
    for (const auto& f : files) out.push_back(f.name);
    return out;
  }

  TempDir dir;
};

TEST_F(AttemptLogsTest, ReadsEveryStdoutLogInTheManifestsOrder) {
  hetjob();
  auto files = read_attempt_logs(dir.path(), {});
  ASSERT_TRUE(files.ok()) << files.error().message();
  EXPECT_EQ(names(*files), (std::vector<std::string>{"batch", "component-0", "component-1", "program"}));
  const auto& batch = (*files)[0];
  EXPECT_EQ(batch.component, -1);
  EXPECT_EQ(batch.stream, LogStream::out);
  EXPECT_EQ(batch.path, "logs/batch.out");
  ASSERT_TRUE(batch.content.ok());
  EXPECT_EQ(batch.content->text, "batch says hi\n");
  EXPECT_EQ((*files)[1].content->state, LogFileState::empty);
  EXPECT_EQ((*files)[2].content->state, LogFileState::missing);
  EXPECT_EQ((*files)[3].content->text, "epoch 1\n");
}

TEST_F(AttemptLogsTest, SelectsAComponentsLogsAndTheStderrStream) {
  hetjob();
  LogSelection selection;
  selection.component = 0;
  auto zero = read_attempt_logs(dir.path(), selection);
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(names(*zero), (std::vector<std::string>{"component-0", "program"}));

  selection.component = -1;
  selection.stream = LogStream::err;
  auto batch = read_attempt_logs(dir.path(), selection);
  ASSERT_TRUE(batch.ok());
  ASSERT_EQ(batch->size(), 1u);
  EXPECT_EQ((*batch)[0].path, "logs/batch.err");
  EXPECT_EQ((*batch)[0].stream, LogStream::err);
  EXPECT_EQ((*batch)[0].content->text, "batch complains\n");
}

TEST_F(AttemptLogsTest, AnOffsetPagesEachSelectedFile) {
  hetjob();
  LogSelection selection;
  selection.component = -1;
  selection.offset = 6;
  auto files = read_attempt_logs(dir.path(), selection);
  ASSERT_TRUE(files.ok());
  EXPECT_EQ((*files)[0].content->text, "says hi\n");
  EXPECT_EQ((*files)[0].content->begin, 6u);
}

TEST_F(AttemptLogsTest, AnUnknownComponentNamesTheOnesThereAre) {
  hetjob();
  LogSelection selection;
  selection.component = 3;
  auto files = read_attempt_logs(dir.path(), selection);
  ASSERT_FALSE(files.ok());
  EXPECT_EQ(files.error().kind(), ErrorKind::invalid_argument);
  EXPECT_EQ(files.error().message(),
            "no log of component 3; the attempt's components are: -1 (the job's own log), 0, 1");
}

TEST_F(AttemptLogsTest, AnAttemptWithoutManifestNeverGotItsDirectory) {
  auto files = read_attempt_logs(dir.file("attempts/1"), {});
  ASSERT_FALSE(files.ok());
  EXPECT_EQ(files.error().kind(), ErrorKind::not_found);
  EXPECT_EQ(files.error().message(), dir.file("attempts/1") +
                                         " has no manifest.json: the attempt never got its directory (not prepared "
                                         "yet, or preparing failed)");
}

TEST_F(AttemptLogsTest, ManifestPathsOutsideTheAttemptAreNeverOpened) {
  write_test_file(dir.file("outside"), "not a log\n");
  write_manifest({{"absolute", -1, dir.file("outside"), "logs/a.err"},
                  {"climbs", 0, "logs/../../outside", "logs/b.err"},
                  {"fine", 1, "logs/..x/ok", "logs/c.err"}});
  write_test_file(dir.file("logs/..x/ok"), "fine\n");
  auto files = read_attempt_logs(dir.path(), {});
  ASSERT_TRUE(files.ok()) << files.error().message();
  ASSERT_EQ(files->size(), 3u);
  ASSERT_FALSE((*files)[0].content.ok());
  EXPECT_EQ((*files)[0].content.error().kind(), ErrorKind::corrupt);
  EXPECT_EQ((*files)[0].content.error().message(), dir.file("manifest.json") + " names log path " +
                                                       dir.file("outside") +
                                                       ", which is absolute; refusing to read outside the attempt");
  ASSERT_FALSE((*files)[1].content.ok());
  EXPECT_EQ((*files)[1].content.error().message(),
            dir.file("manifest.json") +
                " names log path logs/../../outside, which climbs out with \"..\"; refusing to read it");
  ASSERT_TRUE((*files)[2].content.ok()) << (*files)[2].content.error().message();
  EXPECT_EQ((*files)[2].content->text, "fine\n");
}

TEST_F(AttemptLogsTest, ALinkedLogDirectoryIsNotFollowed) {
  write_test_file(dir.file("elsewhere/batch.out"), "someone else's\n");
  write_manifest({{"batch", -1, "logs/batch.out", "logs/batch.err"}});
  ASSERT_EQ(::symlink(dir.file("elsewhere").c_str(), dir.file("logs").c_str()), 0);
  auto files = read_attempt_logs(dir.path(), {});
  ASSERT_TRUE(files.ok());
  ASSERT_FALSE((*files)[0].content.ok());
  EXPECT_EQ((*files)[0].content.error().kind(), ErrorKind::invalid_argument);
  EXPECT_EQ((*files)[0].content.error().message(), dir.file("logs") + " is a symbolic link, not a directory: ignored");
}

}  // namespace
}  // namespace tpslurm::storage
