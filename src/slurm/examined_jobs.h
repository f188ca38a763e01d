// ExaminedJobs: what the tag search learnt about live slurmctld jobs it read in full, so that
// the next cheap search need not read them again (internal to src/slurm/; SlurmctldListing
// owns one per client).
//
// For each job id it keeps hashes of the record's three marks (name, comment, working
// directory). A later search can then tell without a read that a cached job cannot carry a
// tag (fewer than two of the tag's mark hashes are equal), whatever tags it is asked about:
// remembering only "matched none of the tags asked then" would hide a job from a tag asked
// later. Equal hashes mean "read it again": a collision costs a read, never a miss.
//
// An entry is sound only while its id stays continuously listed (slurmctld never holds two
// live jobs with one id), so retain() drops every id a listing no longer shows. What a
// cached record says can still change unseen (a user renames a job; an id purged and reused
// between two listings): a search that relied on the cache proves nothing (SourceReport::
// exhaustive). Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>
#include <unordered_map>
#include <vector>

#include "model/job_snapshot.h"
#include "model/job_tag.h"

namespace tpslurm::slurm {

class ExaminedJobs {
 public:
  struct Marks {
    std::size_t name = 0;
    std::size_t comment = 0;
    std::size_t directory = 0;
  };
  static Marks marks_of(const model::JobTag& tag);

  void remember(const model::JobSnapshot& job);
  // Forgets every id not in `listed` (ascending, as a listing gives them).
  void retain(std::span<const std::uint32_t> listed);

  enum class Verdict { unknown, cannot_match, might_match };
  // `tags` as marks_of() gives them.
  Verdict check(std::uint32_t job_id, std::span<const Marks> tags) const;
  std::size_t size() const;

 private:
  mutable std::mutex m_mutex;
  std::unordered_map<std::uint32_t, Marks> m_jobs;
};

}  // namespace tpslurm::slurm
