// Reading what commands are given: a LaunchRequest file (or "-" for stdin) and the two
// catalogs the settings name. Errors name the file, the setting and the fix.
#pragma once

#include <string>

#include "base/result.h"
#include "model/catalogs.h"
#include "model/launch_request.h"
#include "model/settings.h"

namespace tpslurm::cli {

using Catalogs = model::Catalogs;

// Reads and parses both catalogs; every problem of both files is returned.
Result<Catalogs, model::Problems> load_catalogs(const model::Settings& settings, std::string_view command);

// The request text; bodies over the documented limit are refused without reading them whole.
Result<std::string> read_request(const std::string& path);

// Reads, parses and validates a request against the catalogs and the runtime profile.
Result<model::LaunchRequest, model::Problems> load_request(const std::string& path, const Catalogs& catalogs,
                                                           const model::Settings& settings);

}  // namespace tpslurm::cli
