#include "url.h"

#include <cctype>

namespace tpslurm::sim {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool unreserved(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '~' || c == '-' || c == '.' || c == '_';
}

// Decodes %XX (and "+" as space when `plus_is_space`); false on a broken escape or NUL.
bool decode(std::string_view in, bool plus_is_space, std::string& out) {
  out.clear();
  for (std::size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '%') {
      if (i + 2 >= in.size()) return false;
      int hi = hex_value(in[i + 1]);
      int lo = hex_value(in[i + 2]);
      if (hi < 0 || lo < 0) return false;
      char decoded = static_cast<char>(hi * 16 + lo);
      if (decoded == '\0') return false;
      out.push_back(decoded);
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return true;
}

}  // namespace

const std::string* Target::param(std::string_view key) const {
  const std::string* found = nullptr;
  for (const auto& [k, v] : query) {
    if (k == key) found = &v;
  }
  return found;
}

std::vector<std::string> Target::params(std::string_view key) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : query) {
    if (k == key) out.push_back(v);
  }
  return out;
}

Target parse_target(std::string_view target) {
  Target out;
  std::size_t qmark = target.find('?');
  std::string_view path = target.substr(0, qmark);
  std::string_view query = qmark == std::string_view::npos ? std::string_view{} : target.substr(qmark + 1);
  out.path = std::string(path);

  std::string segment;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    std::string_view raw = path.substr(start, slash - start);
    start = slash + 1;
    if (raw.empty()) continue;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '%') {
        i += 2;
      } else if (!unreserved(raw[i])) {
        out.path_valid = false;
      }
    }
    if (!decode(raw, false, segment)) out.path_valid = false;
    out.segments.push_back(segment);
  }

  out.query_has_literal_comma = query.find(',') != std::string_view::npos;
  std::size_t pos = 0;
  while (pos < query.size()) {
    std::size_t amp = query.find('&', pos);
    if (amp == std::string_view::npos) amp = query.size();
    std::string_view item = query.substr(pos, amp - pos);
    pos = amp + 1;
    if (item.empty()) continue;
    std::size_t eq = item.find('=');
    std::string key;
    std::string value;
    if (!decode(item.substr(0, eq), true, key) ||
        (eq != std::string_view::npos && !decode(item.substr(eq + 1), true, value))) {
      out.query_valid = false;
      continue;
    }
    out.query.emplace_back(std::move(key), std::move(value));
  }
  return out;
}

}  // namespace tpslurm::sim
