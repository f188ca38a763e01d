// What the request parsers share (submit_request.cc, submit_request_v4x.cc,
// submit_request_v38.cc, update_request.cc): reading values as slurmrestd does and a new component's record.
// Internal to the simulator.
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "submit_request.h"

namespace tpslurm::sim::submit_detail {

namespace json = boost::json;

std::string type_name(const json::value& v);

std::optional<std::int64_t> as_int(const json::value& v);

std::optional<std::int64_t> as_no_val(const json::value& v);

// "4G", "512M", "100" (MB), "2T", "512K".
std::optional<std::uint64_t> parse_memory_text(std::string_view text);

std::optional<std::uint64_t> parse_memory(const json::value& v);

// time_str2mins: "MM", "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS", "UNLIMITED".
// Returns minutes, -2 for infinite, nullopt if unparsable.
std::optional<std::int64_t> parse_time_text(std::string_view text);

// A time limit in minutes: 0 = unlimited (INFINITE or unset), -1 = unparsable.
std::int64_t parse_time_limit(const json::value& v);

// "2", "1-4", 3, [1, 4], [2]: the minimum node count.
std::optional<std::uint32_t> parse_nodes(const json::value& v);

// The GPU count of "gpu:1", "gpu:h100:2" (after any "gres/" or "gres:" prefix).
std::uint32_t gpu_count(std::string_view spec);

JobRecord new_record(Dialect dialect, const SubmitDefaults& defaults);

// An `environment`: a list of NAME=value strings (or an object of them); false for anything else.
bool parse_environment(const json::value& v, std::vector<std::string>& out);

// `text` in lower case (ASCII).
std::string lower(std::string_view text);

// The dialects' parsers (parse_submit() picks one).
SubmitParse parse_v4x(const json::value& root, Dialect dialect, const SubmitDefaults& defaults);
SubmitParse parse_v38(const json::value& root, const SubmitDefaults& defaults);

}  // namespace tpslurm::sim::submit_detail
