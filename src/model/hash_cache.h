// HashCache: the seam through which artifact hashing remembers what it already read.
//
// Images are many GiB; re-reading one on every submit would dominate the submit path. A
// cached SHA-256 is reused only when the file's identity (path, size, mtime, ctime, inode)
// is unchanged. The journal implements this interface (its artifact_hashes table); tests may
// use an in-memory one. Implementations must be safe to call from several threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"

namespace tpslurm::model {

struct FileIdentity {
  std::string path;
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::int64_t ctime_ns = 0;
  std::uint64_t inode = 0;

  bool operator==(const FileIdentity&) const = default;
};

class HashCache {
 public:
  virtual ~HashCache() = default;
  // The SHA-256 recorded for exactly this identity, if any.
  virtual Result<std::optional<std::string>> lookup(const FileIdentity& file) = 0;
  // Records (or replaces) the hash for this path.
  virtual Status store(const FileIdentity& file, const std::string& sha256) = 0;
};

}  // namespace tpslurm::model
