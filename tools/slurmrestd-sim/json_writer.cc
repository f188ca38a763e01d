#include "json_writer.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace tpslurm::sim {

void append_json_string(std::string& out, std::string_view value) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (char c : value) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '/': out += "\\/"; break;  // json-c escapes the solidus; slurmrestd keeps it
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: {
        auto u = static_cast<unsigned char>(c);
        if (u < 0x20) {
          out += "\\u00";
          out.push_back(kHex[u >> 4]);
          out.push_back(kHex[u & 0xf]);
        } else {
          out.push_back(c);
        }
      }
    }
  }
  out.push_back('"');
}

void JsonWriter::newline_indent(std::size_t depth) {
  m_out.push_back('\n');
  m_out.append(depth * 2, ' ');
}

void JsonWriter::before_value() {
  if (m_after_key) {
    m_after_key = false;
    return;
  }
  if (m_stack.empty()) return;  // the top-level value
  Level& level = m_stack.back();
  if (level.is_object) std::abort();  // a value inside an object needs a key
  if (level.count++ > 0) m_out.push_back(',');
  newline_indent(m_stack.size());
}

JsonWriter& JsonWriter::key(std::string_view name) {
  if (m_stack.empty() || !m_stack.back().is_object || m_after_key) std::abort();
  Level& level = m_stack.back();
  if (level.count++ > 0) m_out.push_back(',');
  newline_indent(m_stack.size());
  append_json_string(m_out, name);
  m_out += ": ";
  m_after_key = true;
  return *this;
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  m_out.push_back('{');
  m_stack.push_back({true, 0});
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  m_out.push_back('[');
  m_stack.push_back({false, 0});
  return *this;
}

void JsonWriter::close(bool is_object, char bracket) {
  if (m_stack.empty() || m_stack.back().is_object != is_object || m_after_key) std::abort();
  m_stack.pop_back();
  // json-c breaks even an empty container over two lines.
  newline_indent(m_stack.size());
  m_out.push_back(bracket);
}

JsonWriter& JsonWriter::end_object() {
  close(true, '}');
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  close(false, ']');
  return *this;
}

JsonWriter& JsonWriter::string(std::string_view value) {
  before_value();
  append_json_string(m_out, value);
  return *this;
}

JsonWriter& JsonWriter::integer(std::int64_t value) {
  before_value();
  m_out += std::to_string(value);
  return *this;
}

JsonWriter& JsonWriter::number(double value) {
  before_value();
  if (!std::isfinite(value)) {
    m_out += "null";
    return *this;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", value);
  std::string text(buf);
  // json-c marks a double as a double: an integral value still gets ".0".
  if (text.find_first_of(".eE") == std::string::npos) text += ".0";
  m_out += text;
  return *this;
}

JsonWriter& JsonWriter::boolean(bool value) {
  before_value();
  m_out += value ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  m_out += "null";
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  before_value();
  m_out += json;
  return *this;
}

JsonWriter& JsonWriter::string_array_field(std::string_view name, const std::vector<std::string>& values) {
  key(name).begin_array();
  for (const auto& v : values) string(v);
  return end_array();
}

JsonWriter& JsonWriter::string_array_field(std::string_view name,
                                           const std::vector<std::string_view>& values) {
  key(name).begin_array();
  for (auto v : values) string(v);
  return end_array();
}

}  // namespace tpslurm::sim
