// The seal's bounds (log_seal.h): per file, per attempt, per listing, and the slices it is done
// in — each as a count the seal reports, never a time.
#include "storage/log_seal.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "base/digest.h"
#include "base/unique_fd.h"
#include "support/planted_files.h"
#include "support/temp_dir.h"

namespace tpslurm::storage {
namespace {

using namespace std::chrono_literals;
using testing::make_empty_files;
using testing::TempDir;
using testing::write_test_file;

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

// A file of `size` bytes that holds `head` at its start and `tail` at its end, sparse between.
void make_file(const std::string& path, std::uint64_t size, std::string_view head = {}, std::string_view tail = {}) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  ASSERT_GE(fd.get(), 0) << path;
  ASSERT_EQ(::ftruncate(fd.get(), static_cast<off_t>(size)), 0);
  ASSERT_EQ(::pwrite(fd.get(), head.data(), head.size(), 0), static_cast<ssize_t>(head.size()));
  ASSERT_EQ(::pwrite(fd.get(), tail.data(), tail.size(), static_cast<off_t>(size - tail.size())),
            static_cast<ssize_t>(tail.size()));
}

// SHA-256 of `head` then zeros, `bytes` in all (what a sparse file's first bytes read as).
std::string zeros_after(std::string_view head, std::uint64_t bytes) {
  std::string data(head);
  data.resize(static_cast<std::size_t>(bytes), '\0');
  return data;
}

const SealedLog* find(const LogSeal& seal, std::string_view name) {
  const auto it = std::find_if(seal.files.begin(), seal.files.end(), [&](const auto& f) { return f.name == name; });
  return it == seal.files.end() ? nullptr : &*it;
}

bool noted(const LogSeal& seal, std::string_view note) {
  return std::find(seal.notes.begin(), seal.notes.end(), note) != seal.notes.end();
}

class LogSealTest : public ::testing::Test {
 protected:
  LogSealTest() { std::filesystem::create_directories(m_logs); }
  std::string log(const std::string& name) const { return m_logs + "/" + name; }

  TempDir m_dir;
  std::string m_attempt = m_dir.file("attempts/1");
  std::string m_logs = m_attempt + "/logs";
  ManualClock m_clock{TimePoint{}};
};

TEST_F(LogSealTest, AFileUpToSixteenMiBIsHashedWhole) {
  make_file(log("batch.out"), 16 * kMiB, "start", "end\n");
  auto sealed = seal_logs(m_attempt);
  ASSERT_TRUE(sealed.ok()) << sealed.error().message();
  const SealedLog* file = find(*sealed, "batch.out");
  ASSERT_NE(file, nullptr);
  EXPECT_TRUE(file->whole());
  EXPECT_EQ(file->size, 16 * kMiB);
  std::string content = zeros_after("start", 16 * kMiB);
  content.replace(content.size() - 4, 4, "end\n");
  EXPECT_EQ(file->sha256, sha256_hex(content));
}

TEST_F(LogSealTest, ALargerFileIsHashedByItsFirstAndLastEightMiBWithItsSize) {
  const std::uint64_t size = std::uint64_t{100} << 30;
  make_file(log("huge.log"), size, "HEAD", "TAIL");
  auto sealed = seal_logs(m_attempt);
  ASSERT_TRUE(sealed.ok()) << sealed.error().message();
  const SealedLog* file = find(*sealed, "huge.log");
  ASSERT_NE(file, nullptr);
  EXPECT_FALSE(file->whole());
  EXPECT_EQ(file->edge_bytes, 8 * kMiB);
  EXPECT_EQ(file->size, size);
  std::string last(8 * kMiB, '\0');
  last.replace(last.size() - 4, 4, "TAIL");
  Sha256 expected;
  expected.update(zeros_after("HEAD", 8 * kMiB));
  expected.update(last);
  EXPECT_EQ(file->sha256, expected.hex_digest()) << "head -c 8M; tail -c 8M | sha256sum";
  EXPECT_TRUE(noted(*sealed, "huge.log: hashed in part, its first and last 8 MiB of 107374182400 bytes"));
}

TEST_F(LogSealTest, TheDaemonsLimitsAreTheDocumentedOnes) {
  const SealLimits limits;
  EXPECT_EQ(limits.file_bytes, 16 * kMiB);
  EXPECT_EQ(limits.attempt_bytes, 1024 * kMiB);
  EXPECT_EQ(limits.entries, 1000u);
}

TEST_F(LogSealTest, AnAttemptsLogsAreHashedUpToItsLimit) {
  for (int n = 10; n < 30; ++n) make_file(log("big" + std::to_string(n)), 4 * kMiB);
  auto sealed = seal_logs(m_attempt, {kMiB, 8 * kMiB, 1000});
  ASSERT_TRUE(sealed.ok()) << sealed.error().message();
  EXPECT_EQ(sealed->files.size(), 8u) << "8 files of 1 MiB hashed each make 8 MiB";
  EXPECT_EQ(sealed->files.back().name, "big17");
  EXPECT_TRUE(noted(*sealed, "big10: hashed in part, its first and last 512 KiB of 4194304 bytes"));
  EXPECT_TRUE(noted(*sealed, "big18: not hashed: the seal hashes at most 8 MiB of an attempt's logs"));
  EXPECT_TRUE(noted(*sealed, "big29: not hashed: the seal hashes at most 8 MiB of an attempt's logs"));
}

TEST_F(LogSealTest, OnlyTheFirstEntriesOfLogsAreRead) {
  make_empty_files(m_logs, 15, "rank-");
  auto sealed = seal_logs(m_attempt, {16 * kMiB, kMiB, 10});
  ASSERT_TRUE(sealed.ok()) << sealed.error().message();
  EXPECT_EQ(sealed->files.size(), 10u);
  EXPECT_TRUE(noted(*sealed, "logs: more than 10 entries; only 10 were read, the others are not sealed"));
}

TEST_F(LogSealTest, EachSliceStopsAtItsBytesAndTheNextGoesOnWhereItStopped) {
  make_file(log("a.out"), 3 * kMiB, "a");
  make_file(log("b.out"), 2 * kMiB, "b");
  LogSealer sealer(m_attempt);
  int slices = 0;
  for (bool done = false; !done && slices < 10; ++slices) {
    WorkSlice slice(&m_clock, {kMiB, 10'000, 1s});
    auto sealed = sealer.seal_some(slice);
    ASSERT_TRUE(sealed.ok()) << sealed.error().message();
    EXPECT_EQ(slice.bytes(), kMiB) << "slice " << slices;
    done = *sealed;
  }
  EXPECT_EQ(slices, 5) << "5 MiB, 1 MiB a slice";
  ASSERT_EQ(sealer.seal().files.size(), 2u);
  EXPECT_EQ(sealer.seal().files[0].sha256, sha256_hex(zeros_after("a", 3 * kMiB)));
  EXPECT_EQ(sealer.seal().files[1].sha256, sha256_hex(zeros_after("b", 2 * kMiB)));
}

TEST_F(LogSealTest, ASliceEndsAtItsTime) {
  make_file(log("a.out"), 3 * kMiB);
  LogSealer sealer(m_attempt);
  WorkSlice slice(&m_clock, {64 * kMiB, 10'000, 250ms});
  m_clock.advance(250ms);
  auto sealed = sealer.seal_some(slice);
  ASSERT_TRUE(sealed.ok());
  EXPECT_FALSE(*sealed);
  EXPECT_EQ(slice.bytes(), kMiB) << "one read, then the spent slice was seen";
}

TEST_F(LogSealTest, AFileThatChangesBetweenSlicesIsNotSealedAndNotHashedAgain) {
  make_file(log("growing.log"), 4 * kMiB);
  write_test_file(log("still.log"), "still\n");
  LogSealer sealer(m_attempt);
  WorkSlice first(&m_clock, {kMiB, 10'000, 1s});
  auto sealed = sealer.seal_some(first);
  ASSERT_TRUE(sealed.ok());
  ASSERT_FALSE(*sealed);
  {
    UniqueFd fd(::open(log("growing.log").c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
    ASSERT_EQ(::write(fd.get(), "more\n", 5), 5);
  }
  WorkSlice second(&m_clock, {kMiB, 10'000, 1s});
  sealed = sealer.seal_some(second);
  ASSERT_TRUE(sealed.ok());
  EXPECT_TRUE(*sealed);
  EXPECT_EQ(find(sealer.seal(), "growing.log"), nullptr);
  EXPECT_NE(find(sealer.seal(), "still.log"), nullptr);
  EXPECT_TRUE(noted(sealer.seal(), "growing.log: changed while it was hashed, not sealed"));
}

TEST_F(LogSealTest, AStopRequestEndsTheSealBeforeItsNextRead) {
  make_file(log("a.out"), 3 * kMiB);
  std::stop_source stop;
  stop.request_stop();
  LogSealer sealer(m_attempt);
  WorkSlice stopped(&m_clock, {}, stop.get_token());
  auto sealed = sealer.seal_some(stopped);
  ASSERT_TRUE(sealed.ok());
  EXPECT_FALSE(*sealed);
  EXPECT_EQ(stopped.bytes(), 0u);
  EXPECT_TRUE(sealer.seal().files.empty());

  WorkSlice after(&m_clock, {});
  sealed = sealer.seal_some(after);
  ASSERT_TRUE(sealed.ok());
  EXPECT_TRUE(*sealed) << "the next start goes on";
  EXPECT_EQ(sealer.seal().files.size(), 1u);
}

TEST_F(LogSealTest, NamesOfAnyBytesAreShownEscaped) {
  write_test_file(log("new\nline"), "x");
  write_test_file(log("bad\xff\"q\\"), "x");
  ASSERT_EQ(::symlink("/etc/passwd", log("link\x1b[31m").c_str()), 0);
  auto sealed = seal_logs(m_attempt);
  ASSERT_TRUE(sealed.ok()) << sealed.error().message();
  EXPECT_NE(find(*sealed, "new\\x0aline"), nullptr);
  EXPECT_NE(find(*sealed, "bad\\xff\\\"q\\\\"), nullptr);
  EXPECT_TRUE(noted(*sealed, "link\\x1b[31m: a symbolic link, not sealed"));
}

}  // namespace
}  // namespace tpslurm::storage
