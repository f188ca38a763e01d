// The journal's implementation of model::HashCache: the artifact_hashes table, one row per
// path, reused only for an identical file identity. Shares the journal's connection (through
// its StatementCache) and mutex.
// Internal to journal/; others reach it through Journal::hash_cache().
#pragma once

#include <mutex>
#include <string>

#include "base/clock.h"
#include "journal/statement_cache.h"
#include "model/hash_cache.h"

namespace tpslurm::journal {

class JournalHashCache final : public model::HashCache {
 public:
  JournalHashCache(StatementCache& statements, std::mutex& mutex, const std::string& path, const Clock& clock)
      : m_statements(statements), m_mutex(mutex), m_path(path), m_clock(clock) {}

  Result<std::optional<std::string>> lookup(const model::FileIdentity& file) override;
  Status store(const model::FileIdentity& file, const std::string& sha256) override;

 private:
  StatementCache& m_statements;
  std::mutex& m_mutex;
  const std::string& m_path;
  const Clock& m_clock;
};

}  // namespace tpslurm::journal
