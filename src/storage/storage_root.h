// Whether the storage root is there at all. A shared filesystem that was unmounted leaves an
// empty mount point (or, moved away, no directory): writing an attempt there, or removing an
// attempt's credentials/ "from" it, would act on the wrong tree and journal a lie. The check
// creates and changes nothing; the probe writes one file of its own. Thread-safe.
#pragma once

#include <string>

#include "base/result.h"

namespace tpslurm::storage {

// ok when `root` is empty (no storage root configured) or an existing directory with at least
// one entry; otherwise transient, naming the root and what to check.
Status check_storage_root(const std::string& root);

// Whether the daemon can write under the storage root right now: a small file written durably
// into `root`/slurm/ and removed again (ok when no root is configured). A write that fails in
// one attempt's directory while this succeeds is that attempt's own problem, not the root's.
Status probe_storage_root(const std::string& root);

}  // namespace tpslurm::storage
