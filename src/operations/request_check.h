// A LaunchRequest's validation as `validate`, `submit` and POST /v1/jobs do it: the model's rules
// against the catalogs and the runtime profile (model/launch_request.h) and, in per-user mode,
// the user map; then, in per-user mode, the user's Unix account on this host
// (storage/unix_user.h). Every problem found is returned; nothing is written. Thread-safe.
#pragma once

#include <string_view>

#include "base/result.h"
#include "model/catalogs.h"
#include "model/launch_request.h"
#include "model/settings.h"

namespace tpslurm::operations {

Result<model::LaunchRequest, model::Problems> validate_request(std::string_view text, const model::Catalogs& catalogs,
                                                               const model::Settings& settings);

}  // namespace tpslurm::operations
