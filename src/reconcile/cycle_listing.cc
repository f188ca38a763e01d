#include "reconcile/cycle_listing.h"

#include <malloc.h>

namespace tpslurm::reconcile {

const slurm::JobsResult& CycleListing::get() {
  if (!m_listing) m_listing = m_slurm.jobs_changed_since(std::nullopt);
  return *m_listing;
}

CycleListing::~CycleListing() {
  if (!m_listing) return;
  m_listing.reset();
  malloc_trim(0);
}

}  // namespace tpslurm::reconcile
