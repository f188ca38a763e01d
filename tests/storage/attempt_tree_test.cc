// A hostile job's attempt directory: what it may leave in logs/ and scratch/ (FIFOs, links to
// files and directories outside, logs/ itself a link) must neither block the daemon nor turn
// its rights on anything outside the attempt directory, whether it reads evidence, seals the
// logs or removes the directory.
#include "storage/attempt_tree.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "storage/attempt_evidence.h"
#include "storage/log_seal.h"
#include "support/file_mode.h"
#include "support/temp_dir.h"
#include "support/within.h"

namespace tpslurm::storage {
namespace {

using namespace std::chrono_literals;
using testing::read_test_file;
using testing::TempDir;
using testing::within;
using testing::write_test_file;

constexpr std::string_view kExitRecord = R"({"exit_status": 0, "failed_phase": null})";

using tpslurm::testing::mode_of;

class AttemptTreeTest : public ::testing::Test {
 protected:
  AttemptTreeTest() {
    std::filesystem::create_directories(m_attempt + "/logs");
    std::filesystem::create_directories(m_attempt + "/scratch");
    std::filesystem::create_directories(m_outside);
  }

  std::string in_attempt(const std::string& relative) const { return m_attempt + "/" + relative; }
  std::string outside(const std::string& relative) const { return m_outside + "/" + relative; }

  TempDir m_dir;
  std::string m_attempt = m_dir.file("attempts/1");
  std::string m_outside = m_dir.file("outside");
};

TEST_F(AttemptTreeTest, AFifoAsExitJsonIsRefusedWithoutBlocking) {
  ASSERT_EQ(::mkfifo(in_attempt("logs/exit.json").c_str(), 0666), 0);
  auto read = within(10s, [&] { return read_exit_evidence(m_attempt); });
  ASSERT_TRUE(read.has_value()) << "reading a FIFO as logs/exit.json blocked";
  ASSERT_FALSE(read->ok());
  EXPECT_EQ(read->error().kind(), ErrorKind::invalid_argument);
  EXPECT_EQ(read->error().message(), in_attempt("logs/exit.json") + " is a FIFO, not a regular file: ignored");
}

TEST_F(AttemptTreeTest, AFifoAsSlurmJobJsonIsRefusedWithoutBlocking) {
  ASSERT_EQ(::mkfifo(in_attempt("logs/slurm-job.json").c_str(), 0666), 0);
  auto read = within(10s, [&] { return read_job_evidence(m_attempt); });
  ASSERT_TRUE(read.has_value()) << "reading a FIFO as logs/slurm-job.json blocked";
  ASSERT_FALSE(read->ok());
  EXPECT_EQ(read->error().message(), in_attempt("logs/slurm-job.json") + " is a FIFO, not a regular file: ignored");
}

TEST_F(AttemptTreeTest, EvidenceIsReadFromARegularFile) {
  write_test_file(in_attempt("logs/exit.json"), std::string(kExitRecord));
  auto read = read_exit_evidence(m_attempt);
  ASSERT_TRUE(read.ok()) << read.error().message();
  EXPECT_EQ(*read, kExitRecord);
  EXPECT_EQ(read_job_evidence(m_attempt).error().kind(), ErrorKind::not_found);
}

// The job evidence names the het job (or the job) it became, and only a valid Slurm job id;
// read_job_id and read_exit give nothing for a missing or unreadable file.
TEST_F(AttemptTreeTest, EvidenceIsParsedStrictly) {
  EXPECT_EQ(parse_job_evidence(R"({"job_id": 12, "het_job_id": 10})"), 10u);
  EXPECT_EQ(parse_job_evidence(R"({"job_id": 12})"), 12u);
  EXPECT_EQ(parse_job_evidence(R"({"job_id": 0})"), std::nullopt);
  EXPECT_EQ(parse_job_evidence(R"({"job_id": 67108864})"), std::nullopt) << "above Slurm's largest job id";
  EXPECT_EQ(parse_job_evidence(R"({"job_id": "12"})"), std::nullopt);
  EXPECT_EQ(parse_job_evidence("not json"), std::nullopt);
  EXPECT_EQ(read_job_id(m_attempt), std::nullopt);
  EXPECT_FALSE(read_exit(m_attempt));
  write_test_file(in_attempt("logs/slurm-job.json"), R"({"job_id": 41})");
  EXPECT_EQ(read_job_id(m_attempt), 41u);
  write_test_file(in_attempt("logs/exit.json"), R"({"exit_status": 3, "failed_phase": "program"})");
  ASSERT_TRUE(read_exit(m_attempt));
  EXPECT_EQ(read_exit(m_attempt)->exit_status, 3);
  EXPECT_EQ(read_exit(m_attempt)->failed_phase, "program");
  EXPECT_EQ(parse_exit_evidence(R"({"exit_status": 1, "failed_phase": "a\nb\u0007"})")->failed_phase, "a\\x0ab\\x07")
      << "the job writes exit.json: what it says is shown escaped";
}

TEST_F(AttemptTreeTest, ALinkedExitJsonIsNotRead) {
  write_test_file(outside("exit.json"), std::string(kExitRecord));
  ASSERT_EQ(::symlink(outside("exit.json").c_str(), in_attempt("logs/exit.json").c_str()), 0);
  auto read = read_exit_evidence(m_attempt);
  ASSERT_FALSE(read.ok()) << "read through the link: " << *read;
  EXPECT_EQ(read.error().message(), in_attempt("logs/exit.json") + " is a symbolic link, not a regular file: ignored");
}

TEST_F(AttemptTreeTest, ALinkBackInsideTheAttemptIsNotFollowedEither) {
  write_test_file(in_attempt("scratch/exit.json"), std::string(kExitRecord));
  ASSERT_EQ(::symlink("../scratch/exit.json", in_attempt("logs/exit.json").c_str()), 0);
  EXPECT_FALSE(read_exit_evidence(m_attempt).ok());
}

TEST_F(AttemptTreeTest, LogsReplacedByALinkIsNotFollowed) {
  write_test_file(outside("logs/exit.json"), std::string(kExitRecord));
  std::filesystem::remove(in_attempt("logs"));
  ASSERT_EQ(::symlink(outside("logs").c_str(), in_attempt("logs").c_str()), 0);
  auto read = read_exit_evidence(m_attempt);
  ASSERT_FALSE(read.ok()) << "read through the linked logs/: " << *read;
  EXPECT_EQ(read.error().message(), in_attempt("logs") + " is a symbolic link, not a directory: ignored");
  EXPECT_FALSE(read_job_evidence(m_attempt).ok());
}

// logs/ is written empty; whatever a started copy left there — evidence, Slurm's output files, a
// FIFO, a link, or logs/ itself replaced — says a copy started.
TEST_F(AttemptTreeTest, AnythingInLogsSaysACopyStarted) {
  EXPECT_FALSE(*attempt_started(m_attempt));
  EXPECT_FALSE(*attempt_started(m_dir.file("attempts/2"))) << "no attempt directory: nothing started";
  ASSERT_EQ(::mkfifo(in_attempt("logs/slurm-0.out").c_str(), 0666), 0);
  auto fifo = within(10s, [&] { return attempt_started(m_attempt); });
  ASSERT_TRUE(fifo.has_value()) << "looking at logs/ blocked";
  EXPECT_TRUE(**fifo);
  std::filesystem::remove(in_attempt("logs/slurm-0.out"));
  std::filesystem::remove(in_attempt("logs"));
  ASSERT_EQ(::symlink(m_outside.c_str(), in_attempt("logs").c_str()), 0);
  EXPECT_TRUE(*attempt_started(m_attempt)) << "a logs/ that is no longer a directory of ours";
}

TEST_F(AttemptTreeTest, PathsThatCouldClimbOutAreRefused) {
  write_test_file(m_dir.file("attempts/secret"), "x");
  for (const char* path : {"../secret", "/etc/passwd", "logs/../../secret", "", "logs//x", "./logs"}) {
    auto read = read_attempt_file(m_attempt, path, 100);
    ASSERT_FALSE(read.ok()) << path;
    EXPECT_EQ(read.error().kind(), ErrorKind::invalid_argument) << path;
  }
}

TEST_F(AttemptTreeTest, ALargerFileThanTheLimitIsRefused) {
  write_test_file(in_attempt("logs/exit.json"), std::string(kExitEvidenceMaxBytes + 1, ' '));
  auto read = read_exit_evidence(m_attempt);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().message(), in_attempt("logs/exit.json") + " is larger than 4096 bytes");
}

TEST_F(AttemptTreeTest, ExistenceCountsALinkWithoutFollowingIt) {
  ASSERT_EQ(::symlink("/nonexistent", in_attempt("logs/exit.json").c_str()), 0);
  EXPECT_TRUE(*exists_in_attempt(m_attempt, "logs/exit.json"));
  EXPECT_FALSE(*exists_in_attempt(m_attempt, "logs/slurm-job.json"));
  std::filesystem::remove_all(in_attempt("logs"));
  write_test_file(outside("logs/exit.json"), "{}");
  ASSERT_EQ(::symlink(outside("logs").c_str(), in_attempt("logs").c_str()), 0);
  EXPECT_FALSE(*exists_in_attempt(m_attempt, "logs/exit.json")) << "looked through the linked logs/";
}

TEST_F(AttemptTreeTest, TheSealHashesAndFreezesOnlyRegularFiles) {
  write_test_file(in_attempt("logs/batch.out"), "done\n", std::filesystem::perms::owner_all);
  write_test_file(outside("key"), "the daemon's key\n",
                  std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  write_test_file(outside("tree/file"), "x");
  ::chmod(outside("tree").c_str(), 0755);
  ASSERT_EQ(::symlink(outside("key").c_str(), in_attempt("logs/evil").c_str()), 0);
  ASSERT_EQ(::symlink(outside("tree").c_str(), in_attempt("logs/evildir").c_str()), 0);
  ASSERT_EQ(::mkfifo(in_attempt("logs/pipe").c_str(), 0666), 0);

  auto sealed = within(10s, [&] { return seal_logs(m_attempt); });
  ASSERT_TRUE(sealed.has_value()) << "the seal blocked on the FIFO";
  ASSERT_TRUE(sealed->ok()) << sealed->error().message();
  EXPECT_EQ((*sealed)->files.size(), 1u);
  EXPECT_EQ((*sealed)->files.at(0).name, "batch.out");
  EXPECT_EQ((*sealed)->notes,
            (std::vector<std::string>{"evil: a symbolic link, not sealed", "evildir: a symbolic link, not sealed",
                                      "pipe: a FIFO, not sealed"}));
  EXPECT_EQ(mode_of(in_attempt("logs/batch.out")), 0500u);
  EXPECT_EQ(mode_of(in_attempt("logs")) & 0222u, 0u) << "logs/ is read-only";
  EXPECT_EQ(mode_of(outside("key")), 0600u) << "the seal changed a file outside through a link";
  EXPECT_EQ(mode_of(outside("tree")), 0755u) << "the seal changed a directory outside through a link";
  EXPECT_EQ(read_test_file(outside("key")), "the daemon's key\n");
}

TEST_F(AttemptTreeTest, ASealOfLinkedLogsTouchesNothingOutside) {
  write_test_file(outside("logs/job.out"), "someone else's\n");
  ::chmod(outside("logs").c_str(), 0755);
  std::filesystem::remove(in_attempt("logs"));
  ASSERT_EQ(::symlink(outside("logs").c_str(), in_attempt("logs").c_str()), 0);
  auto sealed = seal_logs(m_attempt);
  ASSERT_TRUE(sealed.ok()) << sealed.error().message();
  EXPECT_TRUE(sealed->files.empty());
  EXPECT_EQ(sealed->notes, std::vector<std::string>{"logs: a symbolic link, not sealed"});
  EXPECT_EQ(mode_of(outside("logs")), 0755u);
  EXPECT_EQ(mode_of(outside("logs/job.out")), 0600u);
}

TEST_F(AttemptTreeTest, ListingSaysWhatEachEntryIs) {
  write_test_file(in_attempt("logs/a.out"), "a");
  ASSERT_EQ(::symlink("/etc", in_attempt("logs/b").c_str()), 0);
  std::filesystem::create_directories(in_attempt("logs/c"));
  auto logs = open_in_attempt(m_attempt, "logs", Expect::directory);
  ASSERT_TRUE(logs.ok()) << logs.error().message();
  auto listing = list_directory(logs->fd.get(), logs->path, 10);
  ASSERT_TRUE(listing.ok());
  ASSERT_EQ(listing->entries.size(), 3u);
  EXPECT_FALSE(listing->more);
  EXPECT_EQ(kind_of(listing->entries[0].mode), "a regular file");
  EXPECT_EQ(kind_of(listing->entries[1].mode), "a symbolic link");
  EXPECT_EQ(kind_of(listing->entries[2].mode), "a directory");
}

TEST_F(AttemptTreeTest, AListingReadsNoMoreEntriesThanItAsksFor) {
  for (int n = 0; n < 50; ++n) write_test_file(in_attempt("logs/f" + std::to_string(n)), "x");
  auto logs = open_in_attempt(m_attempt, "logs", Expect::directory);
  ASSERT_TRUE(logs.ok()) << logs.error().message();
  auto listing = list_directory(logs->fd.get(), logs->path, 7);
  ASSERT_TRUE(listing.ok());
  EXPECT_EQ(listing->entries.size(), 7u);
  EXPECT_TRUE(listing->more);
  EXPECT_TRUE(std::is_sorted(listing->entries.begin(), listing->entries.end(),
                             [](const auto& a, const auto& b) { return a.name < b.name; }));
  auto exact = list_directory(logs->fd.get(), logs->path, 50);
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(exact->entries.size(), 50u);
  EXPECT_FALSE(exact->more);
}

TEST_F(AttemptTreeTest, AJobsNameReachesAnErrorEscaped) {
  ASSERT_EQ(::mkfifo(in_attempt("logs/x\n\"y").c_str(), 0666), 0);
  auto read = read_attempt_file(m_attempt, "logs/x\n\"y", 100);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().message(), in_attempt("logs/x\\x0a\\\"y") + " is a FIFO, not a regular file: ignored");
}

}  // namespace
}  // namespace tpslurm::storage
