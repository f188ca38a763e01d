// Artifact hashing: the SHA-256 of container images (many GiB), streamed and cached.
//
// sha256_file() reads a file once, in constant memory (one fixed buffer), through base/
// digest.h's Sha256 (OpenSSL EVP), reporting progress as it goes. ArtifactHasher puts the
// HashCache seam (model/hash_cache.h; the journal's artifact table in production) in front:
// an image whose identity (path, size, mtime, ctime, inode) is unchanged is not read again.
// A file that changes while it is read is not cached and the read fails (transient).
//
// verify() is what refuses a submission: not_found when the image is missing, corrupt with
// the expected and the actual hash when they differ.
//
// Progress: the callback gets (path, bytes done, bytes total) at most every
// `progress_step` bytes and once at the end; the CLI draws it on a terminal, the daemon logs
// it. A cache that fails is only a slower path: lookups that fail count as misses and store
// failures are counted in stats(), never turned into a wrong answer.
//
// sha256_file(), sha256_open_file() and file_identity() are thread-safe. An ArtifactHasher
// may be shared between threads if its cache and callback are thread-safe (stats are atomic).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "model/hash_cache.h"

namespace tpslurm::storage {

using HashProgress = std::function<void(const std::string& path, std::uint64_t done, std::uint64_t total)>;

inline constexpr std::uint64_t kDefaultProgressStep = std::uint64_t{256} << 20;  // 256 MiB

Result<model::FileIdentity> file_identity(const std::string& path);

// The file's SHA-256 (lower-case hex), read sequentially in constant memory.
Result<std::string> sha256_file(const std::string& path, const HashProgress& progress = {},
                                std::uint64_t progress_step = kDefaultProgressStep);
// The same for a file already open for reading at its start (attempt_tree.h opens the files of
// attempt directories); `path` names it in errors and progress. The descriptor stays open.
Result<std::string> sha256_open_file(int fd, const std::string& path, const HashProgress& progress = {},
                                     std::uint64_t progress_step = kDefaultProgressStep);

// "1.5 GiB of 8.0 GiB (18%)": for progress lines.
std::string format_hash_progress(std::uint64_t done, std::uint64_t total);

class ArtifactHasher {
 public:
  explicit ArtifactHasher(model::HashCache& cache, HashProgress progress = {},
                          std::uint64_t progress_step = kDefaultProgressStep);

  // The SHA-256 of the file, from the cache when its identity is unchanged.
  Result<std::string> sha256(const std::string& path);

  // OK when the file's SHA-256 is `expected`; `what` names it in errors ("image").
  Status verify(const std::string& path, std::string_view expected, std::string_view what = "image");

  struct Stats {
    std::uint64_t cache_hits = 0;
    std::uint64_t cache_misses = 0;
    std::uint64_t cache_errors = 0;  // failed lookups or stores
    std::uint64_t bytes_read = 0;
  };
  Stats stats() const;

 private:
  model::HashCache& m_cache;
  HashProgress m_progress;
  std::uint64_t m_progress_step;
  std::atomic<std::uint64_t> m_hits{0};
  std::atomic<std::uint64_t> m_misses{0};
  std::atomic<std::uint64_t> m_errors{0};
  std::atomic<std::uint64_t> m_bytes{0};
};

}  // namespace tpslurm::storage
