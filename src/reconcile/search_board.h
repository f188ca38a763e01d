// SearchBoard: the latest search by tag for each attempt that needs one, shared by the
// controller (which runs one batch search per cycle for every such attempt) and the passes
// (which read what was found). Keyed by submit token. Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "base/clock.h"
#include "slurm/slurm_client.h"

namespace tpslurm::reconcile {

struct SearchEntry {
  slurm::SearchResult result;
  TimePoint at;
};

class SearchBoard {
 public:
  void put(const std::string& token, slurm::SearchResult result, TimePoint at);
  std::optional<SearchEntry> get(const std::string& token) const;
  // Forgets an attempt's entry (adopted, resolved, or no longer searched for).
  void forget(const std::string& token);

 private:
  mutable std::mutex m_mutex;
  std::map<std::string, SearchEntry> m_entries;
};

}  // namespace tpslurm::reconcile
