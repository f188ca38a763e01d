#include "model/problems.h"

#include <cstdio>

namespace tpslurm::model {

std::string Problem::to_string() const {
  std::string out = path;
  if (!value.empty()) {
    if (!out.empty()) out += ' ';
    out += value;
  }
  if (!out.empty()) out += ": ";
  out += message;
  return out;
}

void Problems::add(std::string path, std::string message) {
  m_list.push_back({std::move(path), {}, std::move(message)});
}

void Problems::add(std::string path, std::string value, std::string message) {
  m_list.push_back({std::move(path), std::move(value), std::move(message)});
}

void Problems::append(const Problems& other) { m_list.insert(m_list.end(), other.m_list.begin(), other.m_list.end()); }

std::string Problems::to_text() const {
  std::string out;
  for (const auto& problem : m_list) {
    out += problem.to_string();
    out += '\n';
  }
  return out;
}

Error Problems::to_error() const {
  std::string text = to_text();
  if (!text.empty()) text.pop_back();
  return invalid_argument(std::move(text));
}

std::string quote_value(std::string_view value) {
  constexpr std::size_t kMax = 80;
  std::string out = "\"";
  std::size_t shown = 0;
  for (const char c : value) {
    if (shown >= kMax) {
      // Do not cut inside a UTF-8 sequence.
      while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) out.pop_back();
      if (!out.empty() && (static_cast<unsigned char>(out.back()) & 0x80)) out.pop_back();
      out += "…";
      break;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned char>(c));
          out += escaped;
        } else {
          out += c;
        }
    }
    ++shown;
  }
  out += '"';
  return out;
}

}  // namespace tpslurm::model
