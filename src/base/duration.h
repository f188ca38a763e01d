// Durations as operators write them: "10s", "5m", "1h", "2d", or sums such as "1h30m".
//
// parse_duration refuses a bare number (is "10" seconds or minutes?), negative values,
// unknown units and values over ten years, with a message that says what is expected.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "base/result.h"

namespace tpslurm {

Result<std::chrono::seconds> parse_duration(std::string_view text);

// The shortest text parse_duration reads back to the same value: 90 s -> "1m30s".
std::string format_duration(std::chrono::seconds value);

}  // namespace tpslurm
