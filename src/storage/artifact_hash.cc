#include "storage/artifact_hash.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <memory>

#include "base/digest.h"
#include "base/unique_fd.h"
#include "storage/atomic_file.h"

namespace tpslurm::storage {
namespace {

// Large enough that the per-call cost of read() and EVP_DigestUpdate() vanishes, small
// enough to stay in L2 cache while it is hashed.
constexpr std::size_t kBufferBytes = std::size_t{1} << 20;

model::FileIdentity identity_of(const std::string& path, const struct stat& info) {
  return {path, static_cast<std::uint64_t>(info.st_size),
          std::int64_t{info.st_mtim.tv_sec} * 1'000'000'000 + info.st_mtim.tv_nsec,
          std::int64_t{info.st_ctim.tv_sec} * 1'000'000'000 + info.st_ctim.tv_nsec,
          static_cast<std::uint64_t>(info.st_ino)};
}

struct HashedFile {
  std::string sha256;
  model::FileIdentity identity;
  std::uint64_t bytes = 0;
};

Result<HashedFile> hash_open_file(int fd, const std::string& path, const HashProgress& progress, std::uint64_t step) {
  struct stat before {};
  if (::fstat(fd, &before) != 0) return system_error("stat", path, errno);
  if (!S_ISREG(before.st_mode)) return invalid_argument(path + " is not a regular file");
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);

  const auto total = static_cast<std::uint64_t>(before.st_size);
  // Not zeroed (every byte hashed was read first), and no larger than the file needs: a
  // 12 kB script must not pay for clearing a megabyte. One byte more sees the end at once.
  const std::size_t capacity = static_cast<std::size_t>(std::min<std::uint64_t>(kBufferBytes, total + 1));
  const auto buffer = std::make_unique_for_overwrite<char[]>(capacity);
  Sha256 hash;
  std::uint64_t done = 0;
  std::uint64_t next_report = step;
  while (true) {
    const ssize_t n = ::read(fd, buffer.get(), capacity);
    if (n < 0) {
      if (errno == EINTR) continue;
      return system_error("read", path, errno);
    }
    if (n == 0) break;
    hash.update(buffer.get(), static_cast<std::size_t>(n));
    done += static_cast<std::uint64_t>(n);
    if (progress && step > 0 && done >= next_report) {
      progress(path, done, total);
      next_report = done + step;
    }
  }
  struct stat after {};
  if (::fstat(fd, &after) != 0) return system_error("stat", path, errno);
  const model::FileIdentity identity = identity_of(path, before);
  // A file rewritten while it was read has no single hash; do not let one be recorded.
  if (identity != identity_of(path, after) || done != total) {
    return transient(path + " changed while it was being hashed; hash it again once it is complete");
  }
  if (progress) progress(path, done, total);
  return HashedFile{hash.hex_digest(), identity, done};
}

}  // namespace

Result<model::FileIdentity> file_identity(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return system_error("stat", path, errno);
  if (!S_ISREG(info.st_mode)) return invalid_argument(path + " is not a regular file");
  return identity_of(path, info);
}

Result<std::string> sha256_file(const std::string& path, const HashProgress& progress, std::uint64_t progress_step) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return system_error("open", path, errno);
  return sha256_open_file(fd.get(), path, progress, progress_step);
}

Result<std::string> sha256_open_file(int fd, const std::string& path, const HashProgress& progress,
                                     std::uint64_t progress_step) {
  auto hashed = hash_open_file(fd, path, progress, progress_step);
  if (!hashed.ok()) return hashed.error();
  return std::move(hashed->sha256);
}

std::string format_hash_progress(std::uint64_t done, std::uint64_t total) {
  const auto gib = [](std::uint64_t bytes) { return static_cast<double>(bytes) / double(1u << 30); };
  char text[96];
  const int percent = total == 0 ? 100 : static_cast<int>(done * 100 / total);
  std::snprintf(text, sizeof text, "%.1f GiB of %.1f GiB (%d%%)", gib(done), gib(total), percent);
  return text;
}

ArtifactHasher::ArtifactHasher(model::HashCache& cache, HashProgress progress, std::uint64_t progress_step)
    : m_cache(cache), m_progress(std::move(progress)), m_progress_step(progress_step) {}

Result<std::string> ArtifactHasher::sha256(const std::string& path) {
  auto identity = file_identity(path);
  if (!identity.ok()) return identity.error();
  auto cached = m_cache.lookup(*identity);
  if (cached.ok() && cached->has_value()) {
    ++m_hits;
    return std::move(**cached);
  }
  if (!cached.ok()) ++m_errors;
  ++m_misses;
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return system_error("open", path, errno);
  auto hashed = hash_open_file(fd.get(), path, m_progress, m_progress_step);
  if (!hashed.ok()) return hashed.error();
  m_bytes += hashed->bytes;
  if (!m_cache.store(hashed->identity, hashed->sha256).ok()) ++m_errors;
  return std::move(hashed->sha256);
}

Status ArtifactHasher::verify(const std::string& path, std::string_view expected, std::string_view what) {
  auto actual = sha256(path);
  if (!actual.ok()) {
    if (actual.error().kind() == ErrorKind::not_found) {
      return not_found(std::string(what) + " " + path + " is missing (expected sha256 " + std::string(expected) + ")");
    }
    return actual.error().with_context(std::string(what));
  }
  if (*actual != expected) {
    return corrupt(std::string(what) + " " + path + ": expected sha256 " + std::string(expected) + ", found " +
                   *actual);
  }
  return ok_status();
}

ArtifactHasher::Stats ArtifactHasher::stats() const { return {m_hits, m_misses, m_errors, m_bytes}; }

}  // namespace tpslurm::storage
