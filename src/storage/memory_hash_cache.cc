#include "storage/memory_hash_cache.h"

namespace tpslurm::storage {

Result<std::optional<std::string>> MemoryHashCache::lookup(const model::FileIdentity& file) {
  std::lock_guard lock(m_mutex);
  ++m_lookups;
  auto it = m_entries.find(file.path);
  if (it == m_entries.end() || it->second.first != file) return std::optional<std::string>();
  return std::optional<std::string>(it->second.second);
}

Status MemoryHashCache::store(const model::FileIdentity& file, const std::string& sha256) {
  std::lock_guard lock(m_mutex);
  ++m_stores;
  m_entries[file.path] = {file, sha256};
  return ok_status();
}

std::size_t MemoryHashCache::lookups() const {
  std::lock_guard lock(m_mutex);
  return m_lookups;
}

std::size_t MemoryHashCache::stores() const {
  std::lock_guard lock(m_mutex);
  return m_stores;
}

}  // namespace tpslurm::storage
