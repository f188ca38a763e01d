#include "model/detail/json_fields.h"

#include <boost/json/serialize.hpp>
#include <cmath>

namespace tpslurm::model::detail {
namespace json = boost::json;

std::string show(const json::value& value) {
  if (value.is_string()) {
    const auto& text = value.get_string();
    return quote_value(std::string_view(text.data(), text.size()));
  }
  std::string text = json::serialize(value);
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return text;
}

std::string child_path(std::string_view path, std::string_view key) {
  const bool simple = !key.empty() && key.find_first_not_of(
                                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") ==
                                          std::string_view::npos;
  std::string out(path);
  if (!simple) return out + "[" + quote_value(key) + "]";
  if (!out.empty()) out += '.';
  out += key;
  return out;
}

std::string index_path(std::string_view path, std::size_t index) {
  return std::string(path) + "[" + std::to_string(index) + "]";
}

std::optional<std::string> string_at(const json::value& value, const std::string& path, Problems& problems,
                                     bool non_empty) {
  if (!value.is_string()) {
    problems.add(path, show(value), "must be a string");
    return std::nullopt;
  }
  const auto& text = value.get_string();
  std::string out(text.data(), text.size());
  if (out.find('\0') != std::string::npos) {
    problems.add(path, show(value), "contains a NUL byte, which no program can receive; remove it");
    return std::nullopt;
  }
  if (non_empty && out.empty()) {
    problems.add(path, show(value), "must not be empty");
    return std::nullopt;
  }
  return out;
}

const json::value* Fields::get(std::string_view key, Need need) {
  m_known.emplace(key);
  const json::value* value = m_object.if_contains(key);
  if (value == nullptr && need == Need::required) m_problems.add(path_of(key), "is required");
  return value;
}

std::optional<std::string> Fields::string(std::string_view key, Need need, bool non_empty) {
  const json::value* value = get(key, need);
  if (value == nullptr) return std::nullopt;
  return string_at(*value, path_of(key), m_problems, non_empty);
}

std::optional<std::int64_t> Fields::integer(std::string_view key, Need need, std::int64_t min, std::int64_t max) {
  const json::value* value = get(key, need);
  if (value == nullptr) return std::nullopt;
  std::optional<std::int64_t> number;
  if (value->is_int64()) {
    number = value->get_int64();
  } else if (value->is_uint64()) {
    number = value->get_uint64() > static_cast<std::uint64_t>(max) ? max + 1 : static_cast<std::int64_t>(value->get_uint64());
  } else if (value->is_double() && std::trunc(value->get_double()) == value->get_double() &&
             std::fabs(value->get_double()) < 9e15) {
    number = static_cast<std::int64_t>(value->get_double());
  }
  if (!number || *number < min || *number > max) {
    m_problems.add(path_of(key), show(*value),
                   "must be a whole number from " + std::to_string(min) + " to " + std::to_string(max));
    return std::nullopt;
  }
  return number;
}

std::optional<double> Fields::number(std::string_view key, Need need, double min, double max) {
  const json::value* value = get(key, need);
  if (value == nullptr) return std::nullopt;
  if (!value->is_number() || value->to_number<double>() < min || value->to_number<double>() > max) {
    const auto bound = [](double b) {
      std::string text = std::to_string(b);
      text.erase(text.find_last_not_of('0') + 1);
      if (!text.empty() && text.back() == '.') text.pop_back();
      return text;
    };
    m_problems.add(path_of(key), show(*value), "must be a number from " + bound(min) + " to " + bound(max));
    return std::nullopt;
  }
  return value->to_number<double>();
}

std::optional<bool> Fields::boolean(std::string_view key, Need need) {
  const json::value* value = get(key, need);
  if (value == nullptr) return std::nullopt;
  if (!value->is_bool()) {
    m_problems.add(path_of(key), show(*value), "must be true or false");
    return std::nullopt;
  }
  return value->get_bool();
}

const json::object* Fields::object(std::string_view key, Need need) {
  const json::value* value = get(key, need);
  if (value == nullptr) return nullptr;
  if (!value->is_object()) {
    m_problems.add(path_of(key), show(*value), "must be an object");
    return nullptr;
  }
  return &value->get_object();
}

const json::array* Fields::array(std::string_view key, Need need) {
  const json::value* value = get(key, need);
  if (value == nullptr) return nullptr;
  if (!value->is_array()) {
    m_problems.add(path_of(key), show(*value), "must be an array");
    return nullptr;
  }
  return &value->get_array();
}

void Fields::reject_unknown() {
  std::string known;
  for (const auto& key : m_known) {
    if (!known.empty()) known += ", ";
    known += key;
  }
  for (const auto& entry : m_object) {
    const std::string_view key(entry.key().data(), entry.key().size());
    if (m_known.find(key) == m_known.end()) {
      m_problems.add(path_of(key), "unknown field; remove it or fix its spelling (known here: " + known + ")");
    }
  }
}

}  // namespace tpslurm::model::detail
