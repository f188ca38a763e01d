// MemoryHashCache: a HashCache (model/hash_cache.h) held in memory, for tests, benchmarks and
// one-shot CLI runs without a journal. Keeps one entry per path (the last stored identity);
// counts calls so tests can tell a cache hit from a re-read. Thread-safe (one mutex).
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "model/hash_cache.h"

namespace tpslurm::storage {

class MemoryHashCache final : public model::HashCache {
 public:
  Result<std::optional<std::string>> lookup(const model::FileIdentity& file) override;
  Status store(const model::FileIdentity& file, const std::string& sha256) override;

  std::size_t lookups() const;
  std::size_t stores() const;

 private:
  mutable std::mutex m_mutex;
  std::map<std::string, std::pair<model::FileIdentity, std::string>> m_entries;
  std::size_t m_lookups = 0;
  std::size_t m_stores = 0;
};

}  // namespace tpslurm::storage
