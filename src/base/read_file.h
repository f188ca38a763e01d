// Small file reads every layer needs (config files, catalogs, requests, tokens), and the one
// way errno becomes an Error: "open /x/y: Permission denied", with a kind that says whether
// retrying can help. Thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "base/result.h"

namespace tpslurm {

// The whole file; refuses files larger than `max_bytes` (invalid_argument).
Result<std::string> read_file(const std::string& path, std::size_t max_bytes);

Error system_error(std::string_view what, const std::string& path, int error_number);

}  // namespace tpslurm
