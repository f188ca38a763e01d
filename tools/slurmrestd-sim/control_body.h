// The control API's request readers and replies: optional typed members of a JSON request
// body, each reader failing (false, with `error` naming the member and what it must be) when
// the member is present with the wrong type, and the JSON replies every endpoint answers with.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "http_types.h"

namespace tpslurm::sim::control {

HttpReply json_out(int status, const boost::json::value& value);
// {"error": message} with `status`.
HttpReply fail(int status, std::string message);

// A non-empty run of at most 10 decimal digits (a job or rule id in a path).
bool digits(const std::string& s);

bool get_int(const boost::json::object& obj, const char* key, std::optional<std::int64_t>& out, std::string& error);
bool get_string(const boost::json::object& obj, const char* key, std::optional<std::string>& out, std::string& error);
bool get_bool(const boost::json::object& obj, const char* key, std::optional<bool>& out, std::string& error);
// Milliseconds from "<key>_ms" (integer) or "<key>" (integer ms, or "2s"/"inf" text).
bool get_duration(const boost::json::object& obj, const std::string& key, std::optional<std::int64_t>& out,
                  std::string& error);

}  // namespace tpslurm::sim::control
