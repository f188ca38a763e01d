// CycleListing: slurmctld's full job list (`GET jobs`, every record), read at most once per
// cycle and shared by whatever needs it in that cycle — the status poll's pending reasons and
// the orphan sweep — so that a cycle that needs both pays for one listing. Lazy: nothing is
// read until get() is first called. A listing is large (about 10 kB a job): when it is dropped,
// the freed heap is handed back to the system (malloc_trim), so that a daemon following many
// jobs does not keep the listing's peak as its resident size. One cycle's background work uses
// it, in order: not thread-safe.
#pragma once

#include <optional>

#include "slurm/slurm_client.h"

namespace tpslurm::reconcile {

class CycleListing {
 public:
  // `swept`: the cycle's orphan sweep reads the listing (sweep.h), so whatever runs before it
  // may read it at no extra cost.
  enum class Swept { no, yes };
  explicit CycleListing(slurm::SlurmClient& slurm, Swept swept = Swept::no) : m_slurm(slurm), m_swept(swept) {}
  ~CycleListing();
  CycleListing(const CycleListing&) = delete;
  CycleListing& operator=(const CycleListing&) = delete;

  // The listing, read on the first call; a failed read is kept (and not repeated) too.
  const slurm::JobsResult& get();
  bool read() const { return m_listing.has_value(); }
  // Whether the listing is read this cycle in any case (Swept::yes).
  bool read_anyway() const { return m_swept == Swept::yes; }

 private:
  slurm::SlurmClient& m_slurm;
  Swept m_swept;
  std::optional<slurm::JobsResult> m_listing;
};

}  // namespace tpslurm::reconcile
