#include "base/clock.h"

#include <ctime>

namespace tpslurm {

std::int64_t unix_seconds(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

TimePoint from_unix_seconds(std::int64_t seconds) { return TimePoint(std::chrono::seconds(seconds)); }

std::string format_utc(TimePoint t) {
  const std::time_t seconds = static_cast<std::time_t>(unix_seconds(t));
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char text[32];
  const std::size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return std::string(text, n);
}

std::optional<TimePoint> parse_utc(std::string_view text) {
  std::tm parts{};
  const std::string copy(text);
  const char* end = strptime(copy.c_str(), "%Y-%m-%dT%H:%M:%SZ", &parts);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return from_unix_seconds(static_cast<std::int64_t>(timegm(&parts)));
}

}  // namespace tpslurm
