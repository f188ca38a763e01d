#include "api/body_fields.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "model/problems.h"

namespace tpslurm::api {

std::variant<boost::json::object, Reply> read_fields(std::string_view body, std::initializer_list<FieldSpec> fields) {
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) return boost::json::object{};
  boost::system::error_code error;
  boost::json::value value = boost::json::parse(body, error);
  if (error || !value.is_object()) {
    return error_reply(
        400, "malformed_body",
        error ? "the body is not JSON: " + error.message() : std::string("the body must be a JSON object"));
  }
  model::Problems problems;
  for (const auto& [key, field] : value.as_object()) {
    const FieldSpec* spec = nullptr;
    for (const auto& candidate : fields) {
      if (candidate.name == key) spec = &candidate;
    }
    const std::string shown = model::quote_value(boost::json::serialize(field));
    if (spec == nullptr) {
      std::string known;
      for (const auto& candidate : fields) known += (known.empty() ? "" : ", ") + std::string(candidate.name);
      problems.add(std::string(key), shown, "unknown field; known: " + (known.empty() ? "none" : known));
    } else if (spec->type == FieldType::string && !field.is_string()) {
      problems.add(std::string(key), shown, "expected a string");
    } else if (spec->type == FieldType::boolean && !field.is_bool()) {
      problems.add(std::string(key), shown, "expected true or false");
    } else if (spec->type == FieldType::integer &&
               (!field.is_int64() || field.as_int64() < spec->min || field.as_int64() > spec->max)) {
      problems.add(std::string(key), shown,
                   "expected an integer from " + std::to_string(spec->min) + " to " + std::to_string(spec->max));
    }
  }
  if (!problems.empty()) return error_reply(422, "invalid_request", "the body has invalid fields", problems);
  return std::move(value.as_object());
}

std::optional<std::string> string_field(const boost::json::object& object, std::string_view name) {
  const auto* value = object.if_contains(name);
  if (value == nullptr || !value->is_string()) return std::nullopt;
  return std::string(value->as_string());
}

std::optional<std::int64_t> integer_field(const boost::json::object& object, std::string_view name) {
  const auto* value = object.if_contains(name);
  if (value == nullptr || !value->is_int64()) return std::nullopt;
  return value->as_int64();
}

std::optional<bool> boolean_field(const boost::json::object& object, std::string_view name) {
  const auto* value = object.if_contains(name);
  if (value == nullptr || !value->is_bool()) return std::nullopt;
  return value->as_bool();
}

}  // namespace tpslurm::api
