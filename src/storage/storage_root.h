// Whether the storage root is there at all. A shared filesystem that was unmounted leaves an
// empty mount point (or, moved away, no directory): writing an attempt there, or removing an
// attempt's credentials/ "from" it, would act on the wrong tree and journal a lie. Nothing is
// created or changed; thread-safe.
#pragma once

#include <string>

#include "base/result.h"

namespace tpslurm::storage {

// ok when `root` is empty (no storage root configured) or an existing directory with at least
// one entry; otherwise transient, naming the root and what to check.
Status check_storage_root(const std::string& root);

}  // namespace tpslurm::storage
