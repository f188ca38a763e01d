// Reading what commands are given: a LaunchRequest file (or "-" for stdin), the two catalogs
// the settings name and, in per-user mode, the user map. Errors name the file, the setting and the fix.
#pragma once

#include <string>

#include "base/result.h"
#include "model/catalogs.h"
#include "model/launch_request.h"
#include "model/settings.h"
#include "model/sweep_request.h"

namespace tpslurm::cli {

using Catalogs = model::Catalogs;

// Reads and parses both catalogs, and in per-user mode the user map; every problem of every file
// is returned.
Result<Catalogs, model::Problems> load_catalogs(const model::Settings& settings, std::string_view command);

// The request text; bodies over `limit` (the documented one) are refused without reading them whole.
Result<std::string> read_request(const std::string& path,
                                 std::size_t limit = model::RequestLimits::max_body_bytes);

// Reads a request and validates it as operations::validate_request() does.
Result<model::LaunchRequest, model::Problems> load_request(const std::string& path, const Catalogs& catalogs,
                                                           const model::Settings& settings);

// Reads a sweep (up to model::SweepLimits::max_body_bytes) and validates it as POST /v1/sweeps does.
Result<model::SweepRequest, model::Problems> load_sweep(const std::string& path, const Catalogs& catalogs,
                                                        const model::Settings& settings);

}  // namespace tpslurm::cli
