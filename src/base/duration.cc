#include "base/duration.h"

#include <charconv>
#include <cstdint>

namespace tpslurm {
namespace {

constexpr std::int64_t kMaxSeconds = 10LL * 365 * 24 * 3600;

const char* const kExpected = "expected a duration such as 10s, 5m, 1h or 1h30m";

}  // namespace

Result<std::chrono::seconds> parse_duration(std::string_view text) {
  if (text.empty()) return invalid_argument(kExpected);
  std::int64_t total = 0;
  std::string_view rest = text;
  while (!rest.empty()) {
    std::int64_t number = 0;
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), number);
    if (ec != std::errc() || end == rest.data()) return invalid_argument(kExpected);
    rest.remove_prefix(static_cast<std::size_t>(end - rest.data()));
    if (rest.empty()) return invalid_argument(std::string(kExpected) + " (a unit is required)");
    std::int64_t unit = 0;
    switch (rest.front()) {
      case 's': unit = 1; break;
      case 'm': unit = 60; break;
      case 'h': unit = 3600; break;
      case 'd': unit = 86400; break;
      default: return invalid_argument(kExpected);
    }
    rest.remove_prefix(1);
    if (number < 0 || number > kMaxSeconds / unit) return invalid_argument(std::string(kExpected) + ", at most 10 years");
    total += number * unit;
    if (total > kMaxSeconds) return invalid_argument(std::string(kExpected) + ", at most 10 years");
  }
  return std::chrono::seconds(total);
}

std::string format_duration(std::chrono::seconds value) {
  std::int64_t left = value.count();
  if (left == 0) return "0s";
  std::string out;
  for (const auto& [unit, suffix] : {std::pair<std::int64_t, char>{86400, 'd'}, {3600, 'h'}, {60, 'm'}, {1, 's'}}) {
    if (left >= unit) {
      out += std::to_string(left / unit);
      out += suffix;
      left %= unit;
    }
  }
  return out;
}

}  // namespace tpslurm
