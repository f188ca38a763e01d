#include "config/log_line.h"

#include <time.h>

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <cstdio>

namespace tpslurm::config {
namespace {

constexpr std::string_view kRedacted = "[redacted]";

bool is_base64url(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

std::size_t base64url_run(std::string_view text, std::size_t from) {
  std::size_t end = from;
  while (end < text.size() && is_base64url(text[end])) ++end;
  return end - from;
}

// The length of a JWT starting at `at`, or 0. The signature may be empty: an unsigned token
// ("alg":"none") still carries its claims.
std::size_t jwt_length(std::string_view text, std::size_t at) {
  if (text.substr(at, 3) != "eyJ") return 0;
  std::size_t end = at + base64url_run(text, at);
  if (end - at < 4 || end >= text.size() || text[end] != '.') return 0;
  const std::size_t payload = base64url_run(text, end + 1);
  if (payload == 0) return 0;
  end += 1 + payload;
  if (end >= text.size() || text[end] != '.') return 0;
  end += 1 + base64url_run(text, end + 1);
  return end - at;
}

void append_escaped(std::string& out, char c) {
  switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    default: {
      char code[8];
      std::snprintf(code, sizeof code, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += code;
    }
  }
}

bool is_control(char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }

// A text value as it is, or double-quoted when it could be misread.
std::string text_value(std::string_view raw) {
  const std::string value = redact_tokens(raw);
  bool quote = value.empty();
  for (const char c : value) quote = quote || c == ' ' || c == '"' || c == '\\' || c == '=' || is_control(c);
  if (!quote) return value;
  std::string out = "\"";
  for (const char c : value) {
    if (c == '"' || c == '\\' || is_control(c)) {
      append_escaped(out, c);
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace

std::string redact_tokens(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t at = 0;
  while (at < text.size()) {
    if (const std::size_t length = jwt_length(text, at)) {
      out += kRedacted;
      at += length;
    } else {
      out += text[at++];
    }
  }
  return out;
}

std::string text_body(const LogFields& fields, std::string_view message) {
  std::string out;
  const auto field = [&](std::string_view key, const std::string& value) {
    if (!out.empty()) out += ' ';
    out.append(key).append("=").append(value);
  };
  if (!fields.job.empty()) field("job", text_value(fields.job));
  if (fields.attempt) field("attempt", std::to_string(*fields.attempt));
  if (fields.slurm_job_id) field("slurm_job_id", std::to_string(*fields.slurm_job_id));
  if (!fields.sluid.empty()) field("sluid", text_value(fields.sluid));
  if (!out.empty()) out += ": ";
  for (const char c : redact_tokens(message)) {
    if (is_control(c)) {
      append_escaped(out, c);
    } else {
      out += c;
    }
  }
  for (const auto& [key, value] : fields.extra) out.append(" ").append(key).append("=").append(text_value(value));
  return out;
}

std::string json_members(const LogFields& fields, std::string_view message) {
  boost::json::object object;
  object["message"] = redact_tokens(message);
  if (!fields.job.empty()) object["job"] = redact_tokens(fields.job);
  if (fields.attempt) object["attempt"] = *fields.attempt;
  if (fields.slurm_job_id) object["slurm_job_id"] = *fields.slurm_job_id;
  if (!fields.sluid.empty()) object["sluid"] = redact_tokens(fields.sluid);
  for (const auto& [key, value] : fields.extra) {
    // "time" and "level" come first, written by the caller in front of these members.
    std::string name = key;
    while (name == "time" || name == "level" || object.contains(name)) name = "extra." + name;
    object[name] = redact_tokens(value);
  }
  const std::string text = boost::json::serialize(object);
  return text.substr(1, text.size() - 2);
}

std::string utc_millis(TimePoint time) {
  const auto seconds = std::chrono::floor<std::chrono::seconds>(time);
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(time - seconds).count();
  const std::time_t whole = std::chrono::system_clock::to_time_t(seconds);
  std::tm utc{};
  ::gmtime_r(&whole, &utc);
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1,
                utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, static_cast<int>(millis));
  return text;
}

}  // namespace tpslurm::config
