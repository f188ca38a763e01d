// Reading slurmrestd's JSON (internal to src/slurm/ codecs; Boost.JSON stays out of seams).
//
// Each helper reads one field leniently (a missing or mistyped field reads as empty) because
// records carry a hundred fields the client does not need and servers add more; the codecs
// decide which fields are required. Pure functions; thread-safe.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "slurm/dialect.h"

namespace tpslurm::slurm::json {

// corrupt("the body is not JSON: ...") / ("... is not a JSON object"). The object's tree is
// in an arena of its own (boost::json::monotonic_resource), freed when the object is; do not
// grow it.
Result<boost::json::object> parse_object(std::string_view body);

std::string string_field(const boost::json::object& object, std::string_view key);
// A JSON number that is a whole int64 (a double is cut toward zero); empty for anything else,
// a number past int64's range included (converting such a double is undefined behaviour).
std::optional<std::int64_t> int64_number(const boost::json::value& value);
// int64_number, or a string of decimal digits (plain_integer_text).
std::optional<std::int64_t> plain_integer(const boost::json::value* value);
// Decimal digits only ("15" of "15+1"); empty for anything else.
std::optional<std::int64_t> plain_integer_text(std::string_view text);
// A plain integer, or v0.0.4x's {"set","infinite","number"}: empty when unset or infinite.
std::optional<std::int64_t> no_val_integer(const boost::json::value* value);
bool bool_field(const boost::json::object& object, std::string_view key, bool fallback = false);
std::vector<std::string> string_list(const boost::json::value* value);

// meta, errors and warnings; v0.0.38's `error_code` counts as the number.
ReplyBase read_base(const boost::json::object& body);
std::vector<SlurmMessage> read_messages(const boost::json::object& body, std::string_view key);

boost::json::object no_val_struct(std::int64_t number);  // {"set":true,"infinite":false,"number":N}

// A Unix time in either form (plain or {"set","infinite","number"}); empty when unset or 0.
std::optional<TimePoint> time_field(const boost::json::value* value);

}  // namespace tpslurm::slurm::json
