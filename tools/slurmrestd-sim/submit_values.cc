// Reading a submit body's values the way slurmrestd does (submit_values.h).
#include "submit_values.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <cctype>
#include <optional>

#include "slurm_errors.h"
#include "submit_fields.h"
#include "submit_request.h"

namespace tpslurm::sim::submit_detail {

std::string type_name(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null: return "null";
    case json::kind::bool_: return "boolean";
    case json::kind::int64:
    case json::kind::uint64: return "integer";
    case json::kind::double_: return "number";
    case json::kind::string: return "string";
    case json::kind::array: return "array";
    case json::kind::object: return "object";
  }
  return "unknown";
}

std::optional<std::int64_t> as_int(const json::value& v) {
  if (v.is_int64()) return v.get_int64();
  if (v.is_uint64()) return static_cast<std::int64_t>(v.get_uint64());
  if (v.is_double()) return static_cast<std::int64_t>(v.get_double());
  if (v.is_string()) {
    const json::string& s = v.get_string();
    if (s.empty() || s.size() > 18) return std::nullopt;
    for (char c : s) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    }
    return std::stoll(std::string(s));
  }
  return std::nullopt;
}

// A NO_VAL number: plain, numeric string or {"set","infinite","number"}.
// nullopt = unparsable; value -1 = unset, -2 = infinite.
constexpr std::int64_t kUnset = -1;
constexpr std::int64_t kInfinite = -2;
std::optional<std::int64_t> as_no_val(const json::value& v) {
  if (v.is_null()) return kUnset;
  if (v.is_object()) {
    const json::object& o = v.get_object();
    if (auto it = o.find("infinite"); it != o.end() && it->value().is_bool() && it->value().get_bool())
      return kInfinite;
    if (auto it = o.find("set"); it != o.end() && it->value().is_bool() && !it->value().get_bool()) return kUnset;
    if (auto it = o.find("number"); it != o.end()) return as_int(it->value());
    return kUnset;
  }
  return as_int(v);
}

// "4G", "512M", "100" (MB), "2T", "512K".
std::optional<std::uint64_t> parse_memory_text(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 15) return std::nullopt;
  std::uint64_t value = std::stoull(std::string(text.substr(0, digits)));
  std::string_view unit = text.substr(digits);
  if (unit.empty() || unit == "M" || unit == "m" || unit == "MB") return value;
  if (unit == "G" || unit == "g" || unit == "GB") return value * 1024;
  if (unit == "T" || unit == "t" || unit == "TB") return value * 1024 * 1024;
  if (unit == "K" || unit == "k" || unit == "KB") return (value + 1023) / 1024;
  return std::nullopt;
}

std::optional<std::uint64_t> parse_memory(const json::value& v) {
  if (v.is_string()) return parse_memory_text(v.get_string());
  auto n = as_no_val(v);
  if (!n) return std::nullopt;
  if (*n == kUnset || *n == kInfinite) return 0;  // "0 acts as infinity"
  return static_cast<std::uint64_t>(*n);
}

// time_str2mins: "MM", "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS", "UNLIMITED".
// Returns minutes, -2 for infinite, nullopt if unparsable.
std::optional<std::int64_t> parse_time_text(std::string_view text) {
  if (text == "UNLIMITED" || text == "unlimited" || text == "INFINITE" || text == "infinite") return kInfinite;
  std::int64_t days = 0;
  std::size_t dash = text.find('-');
  if (dash != std::string_view::npos) {
    auto d = parse_time_text(text.substr(0, dash));
    if (!d || text.substr(0, dash).find(':') != std::string_view::npos) return std::nullopt;
    days = *d;
    text = text.substr(dash + 1);
  }
  std::vector<std::int64_t> parts;
  std::string cur;
  for (char c : text) {
    if (c == ':') {
      if (cur.empty()) return std::nullopt;
      parts.push_back(std::stoll(cur));
      cur.clear();
    } else if (std::isdigit(static_cast<unsigned char>(c)) && cur.size() < 9) {
      cur.push_back(c);
    } else {
      return std::nullopt;
    }
  }
  if (cur.empty()) return std::nullopt;
  parts.push_back(std::stoll(cur));
  std::int64_t minutes = 0;
  if (dash != std::string_view::npos) {
    // D-HH[:MM[:SS]]
    minutes =
        days * 1440 + parts[0] * 60 + (parts.size() > 1 ? parts[1] : 0) + (parts.size() > 2 && parts[2] > 0 ? 1 : 0);
  } else if (parts.size() == 1) {
    minutes = parts[0];
  } else if (parts.size() == 2) {
    minutes = parts[0] + (parts[1] > 0 ? 1 : 0);
  } else if (parts.size() == 3) {
    minutes = parts[0] * 60 + parts[1] + (parts[2] > 0 ? 1 : 0);
  } else {
    return std::nullopt;
  }
  return minutes;
}

// A time limit in minutes: 0 = unlimited (INFINITE or unset), -1 = unparsable.
std::int64_t parse_time_limit(const json::value& v) {
  std::optional<std::int64_t> minutes = v.is_string() ? parse_time_text(v.get_string()) : as_no_val(v);
  if (!minutes) return -1;
  if (*minutes == kUnset || *minutes == kInfinite) return 0;
  if (*minutes < 0) return -1;
  return *minutes;
}

// "2", "1-4", 3, [1, 4], [2]: the minimum node count.
std::optional<std::uint32_t> parse_nodes(const json::value& v) {
  if (v.is_array()) {
    const json::array& a = v.get_array();
    if (a.empty() || a.size() > 2) return std::nullopt;
    auto n = as_int(a[0]);
    if (!n || *n < 1) return std::nullopt;
    return static_cast<std::uint32_t>(*n);
  }
  if (v.is_string()) {
    std::string_view s = v.get_string();
    std::size_t dash = s.find('-');
    std::string_view first = dash == std::string_view::npos ? s : s.substr(0, dash);
    auto n = as_int(json::value(json::string(first)));
    if (!n || *n < 1) return std::nullopt;
    return static_cast<std::uint32_t>(*n);
  }
  auto n = as_int(v);
  if (!n || *n < 1) return std::nullopt;
  return static_cast<std::uint32_t>(*n);
}

// The GPU count of "gpu:1", "gpu:h100:2" (after any "gres/" or "gres:" prefix).
std::uint32_t gpu_count(std::string_view spec) {
  for (std::string_view prefix : {"gres/", "gres:"}) {
    if (spec.substr(0, prefix.size()) == prefix) spec.remove_prefix(prefix.size());
  }
  if (spec.substr(0, 3) != "gpu") return 0;
  std::size_t colon = spec.rfind(':');
  if (colon == std::string_view::npos) return 1;
  auto n = as_int(json::value(json::string(spec.substr(colon + 1))));
  return n && *n > 0 ? static_cast<std::uint32_t>(*n) : 1;
}

JobRecord new_record(Dialect dialect, const SubmitDefaults& defaults) {
  JobRecord rec;
  rec.submitted_with = dialect;
  rec.user_name = defaults.user_name;
  rec.user_id = defaults.user_id;
  rec.group_name = defaults.group_name;
  rec.group_id = defaults.group_id;
  return rec;
}

bool parse_environment(const json::value& v, std::vector<std::string>& out) {
  out.clear();
  if (v.is_array()) {
    for (const auto& item : v.get_array()) {
      if (!item.is_string()) return false;
      out.emplace_back(item.get_string());
    }
    return true;
  }
  if (v.is_object()) {
    for (const auto& kv : v.get_object()) {
      if (!kv.value().is_string()) return false;
      out.push_back(std::string(kv.key()) + "=" + std::string(kv.value().get_string()));
    }
    return true;
  }
  return false;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace tpslurm::sim::submit_detail
