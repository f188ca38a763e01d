#include "storage/artifact_hash.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "base/digest.h"
#include "storage/memory_hash_cache.h"
#include "support/temp_dir.h"

namespace tpslurm::storage {
namespace {

using testing::TempDir;
using testing::write_test_file;

// Content that crosses the 1 MiB read buffer several times and ends mid-buffer.
std::string large_content() {
  std::string content;
  for (int i = 0; content.size() < (std::size_t{3} << 20) + 12345; ++i) content += "block " + std::to_string(i) + "\n";
  return content;
}

// A cache whose every call fails, like a journal that cannot be reached.
class BrokenCache final : public model::HashCache {
 public:
  Result<std::optional<std::string>> lookup(const model::FileIdentity&) override { return transient("journal down"); }
  Status store(const model::FileIdentity&, const std::string&) override { return transient("journal down"); }
};

TEST(ArtifactHashTest, StreamsTheSameHashAsOneBuffer) {
  TempDir dir;
  const std::string content = large_content();
  write_test_file(dir.file("image.sqsh"), content);
  auto hashed = sha256_file(dir.file("image.sqsh"));
  ASSERT_TRUE(hashed.ok()) << hashed.error().message();
  EXPECT_EQ(*hashed, sha256_hex(content));
}

TEST(ArtifactHashTest, ReportsProgressUpToTheTotal) {
  TempDir dir;
  const std::string content = large_content();
  write_test_file(dir.file("image.sqsh"), content);
  std::vector<std::uint64_t> reports;
  auto hashed = sha256_file(
      dir.file("image.sqsh"),
      [&](const std::string& path, std::uint64_t done, std::uint64_t total) {
        EXPECT_EQ(path, dir.file("image.sqsh"));
        EXPECT_EQ(total, content.size());
        reports.push_back(done);
      },
      std::uint64_t{1} << 20);
  ASSERT_TRUE(hashed.ok());
  ASSERT_EQ(reports.size(), 4u);  // after 1, 2 and 3 MiB, then the end
  EXPECT_TRUE(std::is_sorted(reports.begin(), reports.end()));
  EXPECT_EQ(reports.back(), content.size());
}

TEST(ArtifactHashTest, FormatsProgressForPeople) {
  EXPECT_EQ(format_hash_progress(std::uint64_t{3} << 29, std::uint64_t{8} << 30), "1.5 GiB of 8.0 GiB (18%)");
  EXPECT_EQ(format_hash_progress(0, 0), "0.0 GiB of 0.0 GiB (100%)");
}

TEST(ArtifactHashTest, AnUnchangedFileIsNotReadAgain) {
  TempDir dir;
  write_test_file(dir.file("image.sqsh"), "image bytes");
  MemoryHashCache cache;
  ArtifactHasher hasher(cache);
  ASSERT_EQ(*hasher.sha256(dir.file("image.sqsh")), sha256_hex("image bytes"));
  ASSERT_EQ(*hasher.sha256(dir.file("image.sqsh")), sha256_hex("image bytes"));
  const auto stats = hasher.stats();
  EXPECT_EQ(stats.cache_hits, 1u);
  EXPECT_EQ(stats.cache_misses, 1u);
  EXPECT_EQ(stats.bytes_read, 11u);
  EXPECT_EQ(cache.stores(), 1u);
}

TEST(ArtifactHashTest, AChangedFileIsReadAgain) {
  TempDir dir;
  write_test_file(dir.file("image.sqsh"), "image bytes");
  MemoryHashCache cache;
  ArtifactHasher hasher(cache);
  ASSERT_TRUE(hasher.sha256(dir.file("image.sqsh")).ok());
  write_test_file(dir.file("image.sqsh"), "other bytes, longer");
  EXPECT_EQ(*hasher.sha256(dir.file("image.sqsh")), sha256_hex("other bytes, longer"));
  EXPECT_EQ(hasher.stats().cache_misses, 2u);
}

TEST(ArtifactHashTest, AReplacedFileWithTheSameSizeAndTimesIsReadAgain) {
  TempDir dir;
  write_test_file(dir.file("image.sqsh"), "aaaa");
  MemoryHashCache cache;
  ArtifactHasher hasher(cache);
  ASSERT_TRUE(hasher.sha256(dir.file("image.sqsh")).ok());
  // Same size, same mtime, new inode: only the inode (and ctime) tell it apart.
  struct stat before {};
  ASSERT_EQ(::stat(dir.file("image.sqsh").c_str(), &before), 0);
  write_test_file(dir.file("replacement"), "bbbb");
  const struct timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, dir.file("replacement").c_str(), times, 0), 0);
  std::filesystem::rename(dir.file("replacement"), dir.file("image.sqsh"));
  EXPECT_EQ(*hasher.sha256(dir.file("image.sqsh")), sha256_hex("bbbb"));
}

TEST(ArtifactHashTest, ABrokenCacheIsOnlySlower) {
  TempDir dir;
  write_test_file(dir.file("image.sqsh"), "image bytes");
  BrokenCache cache;
  ArtifactHasher hasher(cache);
  EXPECT_EQ(*hasher.sha256(dir.file("image.sqsh")), sha256_hex("image bytes"));
  EXPECT_EQ(*hasher.sha256(dir.file("image.sqsh")), sha256_hex("image bytes"));
  EXPECT_EQ(hasher.stats().cache_errors, 4u);
  EXPECT_EQ(hasher.stats().cache_hits, 0u);
}

TEST(ArtifactHashTest, VerifyRefusesAMismatchWithBothHashes) {
  TempDir dir;
  write_test_file(dir.file("image.sqsh"), "tampered");
  MemoryHashCache cache;
  ArtifactHasher hasher(cache);
  const std::string expected(64, 'a');
  const Status verified = hasher.verify(dir.file("image.sqsh"), expected);
  ASSERT_FALSE(verified.ok());
  EXPECT_EQ(verified.error().kind(), ErrorKind::corrupt);
  EXPECT_EQ(verified.error().message(),
            "image " + dir.file("image.sqsh") + ": expected sha256 " + expected + ", found " + sha256_hex("tampered"));
  EXPECT_TRUE(hasher.verify(dir.file("image.sqsh"), sha256_hex("tampered")).ok());
}

TEST(ArtifactHashTest, VerifyRefusesAMissingImage) {
  TempDir dir;
  MemoryHashCache cache;
  ArtifactHasher hasher(cache);
  const Status verified = hasher.verify(dir.file("gone.sqsh"), std::string(64, 'b'));
  ASSERT_FALSE(verified.ok());
  EXPECT_EQ(verified.error().kind(), ErrorKind::not_found);
  EXPECT_EQ(verified.error().message(),
            "image " + dir.file("gone.sqsh") + " is missing (expected sha256 " + std::string(64, 'b') + ")");
}

TEST(ArtifactHashTest, RefusesADirectory) {
  TempDir dir;
  auto hashed = sha256_file(dir.path());
  ASSERT_FALSE(hashed.ok());
  EXPECT_EQ(hashed.error().message(), dir.path() + " is not a regular file");
}

}  // namespace
}  // namespace tpslurm::storage
