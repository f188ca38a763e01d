// The parts of one log line (internal to src/config/, logging.cc writes them): the body in each
// format, the UTC time stamp and the JWT guard. Pure; logging.h describes the formats.
#pragma once

#include <string>
#include <string_view>

#include "base/clock.h"
#include "config/logging.h"

namespace tpslurm::config {

// `text` with every JWT-looking run replaced by "[redacted]".
std::string redact_tokens(std::string_view text);

// "job=J attempt=2: message key=value", or "message key=value" when no field is known.
std::string text_body(const LogFields& fields, std::string_view message);

// The members after "time" and "level", without braces: "\"message\":\"...\",\"job\":\"J\",...".
std::string json_members(const LogFields& fields, std::string_view message);

// "2026-12-01T12:00:00.123Z".
std::string utc_millis(TimePoint time);

}  // namespace tpslurm::config
