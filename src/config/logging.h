// Logging: one line per event, as text for people or as JSON for collectors, written through
// spdlog to stderr (or, for tests, to a stream).
//
//   text  2026-12-01T12:00:00.123Z info job=J attempt=2 slurm_job_id=17 sluid=sABC: submitted key=value
//   json  {"time":"2026-12-01T12:00:00.123Z","level":"info","message":"submitted","job":"J",
//          "attempt":2,"slurm_job_id":17,"sluid":"sABC","key":"value"}
//
// Times are UTC with milliseconds. A field is written only when it is known (a non-empty string,
// an engaged optional); in text the fields end with ':' and are left out with it when there are
// none. Text values that are empty or hold blanks, quotes, '=', backslashes or control characters
// are double-quoted with JSON-style escapes; control characters in a text message are escaped so
// an event stays one line. In JSON every value is escaped by Boost.JSON; the fields' numbers
// are numbers, every extra value a string, and an extra key that repeats a field or an earlier
// extra is written as "extra.<key>" so no object has a key twice. Extra keys are short
// identifiers chosen by the code ("path", "reason").
//
// Never a secret. There is no field for one and callers must not pass tokens, keys or
// credentials in a message or a value. As a guard, anything that looks like a JWT (three
// base64url segments joined by dots, the first starting with "eyJ") is replaced by "[redacted]"
// wherever it appears in a message or a value, in both formats.
//
// Until configure_logging succeeds, events go to stderr as text at level info. Thread-safe:
// log() may be called from any thread, also while configure_logging replaces the destination
// (each event goes whole to either the old or the new one); lines never interleave.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "model/settings.h"

namespace tpslurm::config {

enum class LogLevel { trace, debug, info, warn, error, off };

// What an event is about; every member may be left unknown.
struct LogFields {
  std::string job;                                         // the platform's job id
  std::optional<int> attempt;                              // the attempt number
  std::optional<std::uint32_t> slurm_job_id;               // Slurm's numeric job id
  std::string sluid;                                       // Slurm's unique job id, when the cluster has one
  std::vector<std::pair<std::string, std::string>> extra;  // more key=value pairs, in this order
};

// "trace", "debug", "info", "warn", "error", "off" (the words TUNEPLANE_LOG_LEVEL takes).
std::optional<LogLevel> parse_log_level(std::string_view word);

// From now on, events at `level` and above go to stderr in `format`. invalid_argument naming the
// value when `level` is not one of the words above; the previous configuration then stays.
Status configure_logging(std::string_view level, model::LogFormat format);
// The same to `sink`, which must outlive its use: until the next configure_logging has returned
// and no log() call that began before it is still running.
Status configure_logging(std::string_view level, model::LogFormat format, std::ostream& sink);
// The same with the times taken from `clock` (tests pass a ManualClock; it must outlive its use
// as `sink` must, and is then read from the logging threads).
Status configure_logging(std::string_view level, model::LogFormat format, std::ostream& sink, const Clock& clock);

// Writes one event when `level` is at or above the configured one; LogLevel::off never writes.
void log(LogLevel level, const LogFields& fields, std::string_view message);

inline void log_debug(const LogFields& fields, std::string_view message) { log(LogLevel::debug, fields, message); }
inline void log_info(const LogFields& fields, std::string_view message) { log(LogLevel::info, fields, message); }
inline void log_warn(const LogFields& fields, std::string_view message) { log(LogLevel::warn, fields, message); }
inline void log_error(const LogFields& fields, std::string_view message) { log(LogLevel::error, fields, message); }

}  // namespace tpslurm::config
