#include "slurm_time.h"

#include <cctype>
#include <ctime>

namespace tpslurm::sim {

namespace {

constexpr std::int64_t kMinUts = 1000000;  // parse_time(): smaller "uts" values are refused

bool digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

int number(std::string_view s) {
  int n = 0;
  for (char c : s) n = n * 10 + (c - '0');
  return n;
}

std::optional<std::int64_t> parse_uts(std::string_view rest) {
  if (!digits(rest) || rest.size() > 18) return std::nullopt;
  std::int64_t value = 0;
  for (char c : rest) value = value * 10 + (c - '0');
  if (value < kMinUts) return std::nullopt;
  return value;
}

// "YYYY-MM-DD", "YYYY-MM-DDTHH:MM" or "YYYY-MM-DDTHH:MM:SS", UTC.
std::optional<std::int64_t> parse_iso(std::string_view text) {
  if (text.size() != 10 && text.size() != 16 && text.size() != 19) return std::nullopt;
  if (text[4] != '-' || text[7] != '-') return std::nullopt;
  std::string_view year = text.substr(0, 4);
  std::string_view month = text.substr(5, 2);
  std::string_view day = text.substr(8, 2);
  if (!digits(year) || !digits(month) || !digits(day)) return std::nullopt;
  std::tm tm{};
  tm.tm_year = number(year) - 1900;
  tm.tm_mon = number(month) - 1;
  tm.tm_mday = number(day);
  if (tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31) return std::nullopt;
  if (text.size() > 10) {
    if (text[10] != 'T' || text[13] != ':') return std::nullopt;
    std::string_view hour = text.substr(11, 2);
    std::string_view minute = text.substr(14, 2);
    if (!digits(hour) || !digits(minute)) return std::nullopt;
    tm.tm_hour = number(hour);
    tm.tm_min = number(minute);
    if (text.size() == 19) {
      std::string_view second = text.substr(17, 2);
      if (text[16] != ':' || !digits(second)) return std::nullopt;
      tm.tm_sec = number(second);
    }
    if (tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 59) return std::nullopt;
  }
  return static_cast<std::int64_t>(timegm(&tm));
}

}  // namespace

std::optional<std::int64_t> parse_slurm_time(std::string_view text) {
  std::optional<std::int64_t> value;
  if (text.size() >= 3 && std::tolower(static_cast<unsigned char>(text[0])) == 'u' &&
      std::tolower(static_cast<unsigned char>(text[1])) == 't' &&
      std::tolower(static_cast<unsigned char>(text[2])) == 's') {
    value = parse_uts(text.substr(3));
  } else {
    value = parse_iso(text);
  }
  if (!value || *value == 0) return std::nullopt;
  return value;
}

}  // namespace tpslurm::sim
