#include "base/clock.h"

#include <algorithm>
#include <ctime>

namespace tpslurm {

std::int64_t unix_seconds(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

TimePoint from_unix_seconds(std::int64_t seconds) {
  // A TimePoint counts nanoseconds, so it ends some 292 years either side of 1970. A time from
  // outside (a token's `exp`, a Slurm answer's field) saturates at half of that, so that it
  // neither overflows nor makes the difference of two times overflow.
  constexpr std::int64_t kLimit =
      std::chrono::duration_cast<std::chrono::seconds>(TimePoint::duration::max()).count() / 2;
  return TimePoint(std::chrono::seconds(std::clamp(seconds, -kLimit, kLimit)));
}

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
