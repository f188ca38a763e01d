// The platform API's control bodies (api/body_fields.h) with the field lists of its routes:
// cancel, pause and resume, resolve. Each body is either read (every known field then reads
// back with its type) or refused with a 400 or 422 whose body is one JSON object of the
// error shape (api/exchange.h).
#include <boost/json/parse.hpp>
#include <cstdint>
#include <initializer_list>
#include <variant>

#include "api/body_fields.h"
#include "fuzz_support.h"

using namespace tpslurm;
using api::FieldSpec;
using api::FieldType;

namespace {

void check(std::string_view body, std::initializer_list<FieldSpec> fields) {
  auto read = api::read_fields(body, fields);
  if (const auto* reply = std::get_if<api::Reply>(&read)) {
    if (reply->status != 400 && reply->status != 422) fuzz::fail("a refusal that is neither 400 nor 422", reply->body);
    boost::system::error_code error;
    const auto value = boost::json::parse(reply->body, error);
    if (error || !value.is_object() || !value.as_object().contains("error")) {
      fuzz::fail("a refusal whose body is not the error shape", reply->body);
    }
    return;
  }
  const auto& object = std::get<boost::json::object>(read);
  for (const auto& field : fields) {
    if (!object.contains(field.name)) continue;
    const bool typed = field.type == FieldType::string    ? api::string_field(object, field.name).has_value()
                       : field.type == FieldType::integer ? api::integer_field(object, field.name).has_value()
                                                          : api::boolean_field(object, field.name).has_value();
    if (!typed) fuzz::fail("an accepted field that does not read back with its type", field.name);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body = fuzz::as_text(data, size);
  check(body, {{"reason", FieldType::string}, {"grace_seconds", FieldType::integer, 0, 86400}});
  check(body, {{"reason", FieldType::string}});
  check(body, {{"absent", FieldType::boolean}, {"adopt", FieldType::string}, {"reason", FieldType::string}});
  return 0;
}
