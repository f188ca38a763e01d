// Untrusted JSON in: the only way model/ turns text into a boost::json::value.
//
// Internal to model/ .cc files (Boost.JSON types never appear in model's public headers).
// parse_untrusted_json() refuses, with the byte offset, everything the documented limits
// exclude before a value is built: oversized bodies, invalid UTF-8, nesting deeper than
// the limit, over-long strings, duplicate keys (Boost.JSON would silently keep the last),
// NUL in keys, and numbers out of range (1e999 would become Infinity). NUL inside string
// values is left to the field validators, which name the field.
#pragma once

#include <boost/json/value.hpp>
#include <cstddef>
#include <string_view>

#include "base/result.h"
#include "model/problems.h"

namespace tpslurm::model::detail {

struct JsonLimits {
  std::size_t max_bytes;
  int max_depth;
  std::size_t max_string_bytes;
};

// `what` names the document in messages ("request", "/etc/tp/gpu-series.json").
Result<boost::json::value, Problems> parse_untrusted_json(std::string_view text, const JsonLimits& limits,
                                                          std::string_view what);

// Byte offset of the first invalid UTF-8 sequence, or npos.
std::size_t find_invalid_utf8(std::string_view text);

}  // namespace tpslurm::model::detail
