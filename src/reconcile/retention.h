// Retention of attempt directories (TUNEPLANE_ATTEMPT_RETENTION): a closed attempt's whole
// directory is removed once its cleanup has been closed that long; the journal keeps the
// attempt's record, its log hashes and every event, and a `retention` event says when the
// files went. Off (0) by default. Runs with the sweep, on a pool thread; writes go through the
// JournalWriter.
#pragma once

#include "reconcile/services.h"

namespace tpslurm::reconcile {

struct RetentionReport {
  int removed = 0;
  int failed = 0;  // directories that could not be removed (logged; tried again next sweep)
};

RetentionReport run_retention(Services& services);

}  // namespace tpslurm::reconcile
