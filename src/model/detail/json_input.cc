#include "model/detail/json_input.h"

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/parse.hpp>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "base/printable.h"

namespace tpslurm::model::detail {
namespace json = boost::json;
namespace {

// A SAX pass that only checks; the value is built by json::parse afterwards.
class LimitChecker {
 public:
  static constexpr std::size_t max_array_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_object_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_string_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_key_size = static_cast<std::size_t>(-1);

  explicit LimitChecker(const JsonLimits& limits) : m_limits(limits) {}

  std::string problem;  // set when a handler refused

  bool on_document_begin(json::error_code&) { return true; }
  bool on_document_end(json::error_code&) { return true; }
  bool on_array_begin(json::error_code& ec) { return enter(ec); }
  bool on_array_end(std::size_t, json::error_code&) { return leave(); }
  bool on_object_begin(json::error_code& ec) { return enter(ec); }
  bool on_object_end(std::size_t, json::error_code&) { return leave(); }
  bool on_string_part(json::string_view s, std::size_t n, json::error_code& ec) { return check_length(s, n, ec); }
  bool on_string(json::string_view s, std::size_t n, json::error_code& ec) { return check_length(s, n, ec); }
  bool on_key_part(json::string_view s, std::size_t, json::error_code&) {
    m_key.append(s.data(), s.size());
    return true;
  }
  bool on_key(json::string_view s, std::size_t, json::error_code& ec) {
    m_key.append(s.data(), s.size());
    std::string key = std::move(m_key);
    m_key.clear();
    if (key.find('\0') != std::string::npos) return refuse(ec, "a key contains a NUL byte");
    if (key.size() > m_limits.max_string_bytes) return refuse(ec, "a key is longer than the limit");
    if (!m_keys.back().insert(key).second) return refuse(ec, "duplicate key " + quote_value(key));
    return true;
  }
  bool on_number_part(json::string_view, json::error_code&) { return true; }
  bool on_int64(std::int64_t, json::string_view, json::error_code&) { return true; }
  bool on_uint64(std::uint64_t, json::string_view, json::error_code&) { return true; }
  bool on_double(double d, json::string_view s, json::error_code& ec) {
    if (!std::isfinite(d)) return refuse(ec, "number out of range: " + std::string(s.data(), s.size()));
    return true;
  }
  bool on_bool(bool, json::error_code&) { return true; }
  bool on_null(json::error_code&) { return true; }
  bool on_comment_part(json::string_view, json::error_code&) { return true; }
  bool on_comment(json::string_view, json::error_code&) { return true; }

 private:
  bool enter(json::error_code& ec) {
    if (static_cast<int>(m_keys.size()) >= m_limits.max_depth) {
      return refuse(ec, "nested deeper than " + std::to_string(m_limits.max_depth) + " levels");
    }
    m_keys.emplace_back();
    return true;
  }
  bool leave() {
    m_keys.pop_back();
    return true;
  }
  bool check_length(json::string_view, std::size_t total, json::error_code& ec) {
    if (total > m_limits.max_string_bytes) {
      return refuse(ec, "a string is longer than " + std::to_string(m_limits.max_string_bytes) + " bytes");
    }
    return true;
  }
  bool refuse(json::error_code& ec, std::string why) {
    problem = std::move(why);
    ec = json::make_error_code(json::error::extra_data);  // any error stops the parser
    return false;
  }

  const JsonLimits& m_limits;
  std::vector<std::set<std::string>> m_keys;  // keys seen, per open container
  std::string m_key;
};

std::string size_text(std::size_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= (1u << 10) && bytes % (1u << 10) == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

std::size_t find_invalid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = utf8_length(text, i);
    if (length == 0) return i;
    i += length;
  }
  return std::string_view::npos;
}

Result<json::value, Problems> parse_untrusted_json(std::string_view text, const JsonLimits& limits,
                                                   std::string_view what) {
  Problems problems;
  const std::string subject(what);
  if (text.size() > limits.max_bytes) {
    problems.add("", subject + " is " + std::to_string(text.size()) + " bytes; the limit is " +
                         size_text(limits.max_bytes));
    return problems;
  }
  if (const std::size_t bad = find_invalid_utf8(text); bad != std::string_view::npos) {
    problems.add("", subject + " is not valid UTF-8 at byte " + std::to_string(bad));
    return problems;
  }
  json::basic_parser<LimitChecker> checker(json::parse_options{}, limits);
  json::error_code ec;
  const std::size_t used = checker.write_some(false, text.data(), text.size(), ec);
  if (ec) {
    const std::string& why = checker.handler().problem;
    problems.add("", subject + " is not acceptable JSON at byte " + std::to_string(used) + ": " +
                         (why.empty() ? ec.message() : why));
    return problems;
  }
  json::parse_options options;
  options.max_depth = static_cast<std::size_t>(limits.max_depth) + 1;
  json::value value = json::parse(json::string_view(text.data(), text.size()), ec, {}, options);
  if (ec) {
    problems.add("", subject + " is not valid JSON: " + ec.message());
    return problems;
  }
  return value;
}

}  // namespace tpslurm::model::detail
