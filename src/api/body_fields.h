// The small JSON bodies of the control routes (cancel, pause, resume, resolve): an object whose keys
// are all known and each of the expected type. An empty body is the empty object. Failures
// come back as the reply to send: 400 when the body is not a JSON object, 422 naming every
// unknown or mistyped field.
#pragma once

#include <boost/json/object.hpp>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "api/exchange.h"

namespace tpslurm::api {

enum class FieldType { string, integer, boolean };

struct FieldSpec {
  std::string_view name;
  FieldType type;
  std::int64_t min = 0;  // integers only
  std::int64_t max = 0;
};

// The object, or the reply refusing it.
std::variant<boost::json::object, Reply> read_fields(std::string_view body, std::initializer_list<FieldSpec> fields);

std::optional<std::string> string_field(const boost::json::object& object, std::string_view name);
std::optional<std::int64_t> integer_field(const boost::json::object& object, std::string_view name);
std::optional<bool> boolean_field(const boost::json::object& object, std::string_view name);

}  // namespace tpslurm::api
