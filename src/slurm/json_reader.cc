#include "slurm/json_reader.h"

#include <limits>

#include "slurm/json_listing.h"

namespace tpslurm::slurm::json {

Result<boost::json::object> parse_object(std::string_view body) {
  // The tree lives in an arena that is freed in one piece with the object: a listing of every
  // job is millions of small strings and objects, which the general heap would keep
  // fragmented long after the listing was read. The listing's parser reads it, so that its
  // numbers are what a body read as it arrives holds (json_listing.h).
  return parse_body(body, boost::json::make_shared_resource<boost::json::monotonic_resource>());
}

std::string string_field(const boost::json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  if (value == nullptr || !value->is_string()) return {};
  return std::string(value->as_string());
}

std::optional<std::int64_t> int64_number(const boost::json::value& value) {
  if (value.is_int64()) return value.as_int64();
  if (value.is_uint64()) {
    if (value.as_uint64() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
    return static_cast<std::int64_t>(value.as_uint64());
  }
  if (value.is_double()) {
    const double number = value.as_double();
    if (!(number >= -0x1p63 && number < 0x1p63)) return std::nullopt;
    return static_cast<std::int64_t>(number);
  }
  return std::nullopt;
}

std::optional<std::int64_t> plain_integer(const boost::json::value* value) {
  if (value == nullptr) return std::nullopt;
  if (value->is_string()) return plain_integer_text(value->as_string());
  return int64_number(*value);
}

std::optional<std::int64_t> plain_integer_text(std::string_view text) {
  // 18 digits cannot overflow an int64; Slurm's numbers are far shorter.
  if (text.empty() || text.size() > 18) return std::nullopt;
  std::int64_t number = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    number = number * 10 + (c - '0');
  }
  return number;
}

std::optional<std::int64_t> no_val_integer(const boost::json::value* value) {
  if (value == nullptr) return std::nullopt;
  if (const auto* object = value->if_object()) {
    if (bool_field(*object, "infinite")) return std::nullopt;
    if (!bool_field(*object, "set")) return std::nullopt;
    return plain_integer(object->if_contains("number"));
  }
  return plain_integer(value);
}

bool bool_field(const boost::json::object& object, std::string_view key, bool fallback) {
  const auto* value = object.if_contains(key);
  if (value == nullptr || !value->is_bool()) return fallback;
  return value->as_bool();
}

std::vector<std::string> string_list(const boost::json::value* value) {
  std::vector<std::string> words;
  if (value == nullptr) return words;
  if (value->is_string()) {
    words.emplace_back(value->as_string());
  } else if (const auto* array = value->if_array()) {
    for (const auto& item : *array) {
      if (item.is_string()) words.emplace_back(item.as_string());
    }
  }
  return words;
}

std::vector<SlurmMessage> read_messages(const boost::json::object& body, std::string_view key) {
  std::vector<SlurmMessage> messages;
  const auto* list = body.if_contains(key);
  if (list == nullptr || !list->is_array()) return messages;
  for (const auto& item : list->as_array()) {
    const auto* entry = item.if_object();
    if (entry == nullptr) continue;
    SlurmMessage message;
    auto number = plain_integer(entry->if_contains("error_number"));
    if (!number) number = plain_integer(entry->if_contains("error_code"));
    // A number no int holds would wrap onto another code (2^32 + 2017 onto 2017): none.
    if (number && (*number < std::numeric_limits<int>::min() || *number > std::numeric_limits<int>::max())) {
      number.reset();
    }
    message.number = static_cast<int>(number.value_or(0));
    message.error = string_field(*entry, "error");
    message.description = string_field(*entry, "description");
    message.source = string_field(*entry, "source");
    messages.push_back(std::move(message));
  }
  return messages;
}

ReplyBase read_base(const boost::json::object& body) {
  ReplyBase base;
  if (const auto* meta = body.if_contains("meta"); meta != nullptr && meta->is_object()) {
    const auto& fields = meta->as_object();
    const auto* slurm = fields.if_contains("slurm");
    if (slurm == nullptr) slurm = fields.if_contains("Slurm");
    if (slurm != nullptr && slurm->is_object()) base.release = string_field(slurm->as_object(), "release");
  }
  base.errors = read_messages(body, "errors");
  base.warnings = read_messages(body, "warnings");
  return base;
}

std::optional<TimePoint> time_field(const boost::json::value* value) {
  auto seconds = no_val_integer(value);
  if (!seconds || *seconds <= 0) return std::nullopt;
  return from_unix_seconds(*seconds);
}

boost::json::object no_val_struct(std::int64_t number) {
  boost::json::object object;
  object["set"] = true;
  object["infinite"] = false;
  object["number"] = number;
  return object;
}

}  // namespace tpslurm::slurm::json
