#include "config/logging.h"

#include <spdlog/formatter.h>
#include <spdlog/logger.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <memory>
#include <mutex>

#include "config/log_line.h"
#include "model/problems.h"

namespace tpslurm::config {
namespace {

constexpr std::pair<LogLevel, std::string_view> kLevelNames[] = {
    {LogLevel::trace, "trace"}, {LogLevel::debug, "debug"}, {LogLevel::info, "info"},
    {LogLevel::warn, "warn"},   {LogLevel::error, "error"}, {LogLevel::off, "off"},
};

spdlog::level::level_enum to_spdlog(LogLevel level) {
  switch (level) {
    case LogLevel::trace: return spdlog::level::trace;
    case LogLevel::debug: return spdlog::level::debug;
    case LogLevel::info: return spdlog::level::info;
    case LogLevel::warn: return spdlog::level::warn;
    case LogLevel::error: return spdlog::level::err;
    case LogLevel::off: return spdlog::level::off;
  }
  return spdlog::level::off;
}

std::string_view level_word(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace: return "trace";
    case spdlog::level::debug: return "debug";
    case spdlog::level::info: return "info";
    case spdlog::level::warn: return "warn";
    default: return "error";
  }
}

// Puts the time and the level in front of a body that log() has already formatted, so the
// sink's lock is held only for the copy.
class LineFormatter final : public spdlog::formatter {
 public:
  explicit LineFormatter(model::LogFormat format) : m_format(format) {}

  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    const std::string time = utc_millis(msg.time);
    const std::string_view level = level_word(msg.level);
    if (m_format == model::LogFormat::json) {
      append(dest, "{\"time\":\"");
      append(dest, time);
      append(dest, "\",\"level\":\"");
      append(dest, level);
      append(dest, "\",");
      append(dest, {msg.payload.data(), msg.payload.size()});
      append(dest, "}\n");
    } else {
      append(dest, time);
      append(dest, " ");
      append(dest, level);
      append(dest, " ");
      append(dest, {msg.payload.data(), msg.payload.size()});
      append(dest, "\n");
    }
  }

  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<LineFormatter>(m_format); }

 private:
  static void append(spdlog::memory_buf_t& dest, std::string_view text) {
    dest.append(text.data(), text.data() + text.size());
  }

  model::LogFormat m_format;
};

struct Destination {
  std::shared_ptr<spdlog::logger> logger;
  model::LogFormat format;
  const Clock* clock;
};

const Clock& system_clock() {
  static const SystemClock clock;
  return clock;
}

std::shared_ptr<const Destination> make_destination(spdlog::sink_ptr sink, LogLevel level, model::LogFormat format,
                                                    const Clock& clock) {
  sink->set_formatter(std::make_unique<LineFormatter>(format));
  auto logger = std::make_shared<spdlog::logger>("tuneplane-slurm", std::move(sink));
  logger->set_level(to_spdlog(level));
  logger->flush_on(spdlog::level::trace);
  return std::make_shared<const Destination>(Destination{std::move(logger), format, &clock});
}

// The current destination is swapped whole under the mutex; log() copies the pointer and writes
// outside it, so a reconfiguration never waits for a slow sink.
std::mutex g_mutex;
std::shared_ptr<const Destination>& current() {
  static std::shared_ptr<const Destination> destination = make_destination(
      std::make_shared<spdlog::sinks::stderr_sink_mt>(), LogLevel::info, model::LogFormat::text, system_clock());
  return destination;
}

Status configure(std::string_view level, model::LogFormat format, spdlog::sink_ptr sink, const Clock& clock) {
  const auto parsed = parse_log_level(level);
  if (!parsed) {
    return invalid_argument("log level " + model::quote_value(level) +
                            ": expected trace, debug, info, warn, error or off");
  }
  auto destination = make_destination(std::move(sink), *parsed, format, clock);
  const std::lock_guard lock(g_mutex);
  current() = std::move(destination);
  return ok_status();
}

}  // namespace

std::optional<LogLevel> parse_log_level(std::string_view word) {
  for (const auto& [level, name] : kLevelNames) {
    if (name == word) return level;
  }
  return std::nullopt;
}

Status configure_logging(std::string_view level, model::LogFormat format) {
  return configure(level, format, std::make_shared<spdlog::sinks::stderr_sink_mt>(), system_clock());
}

Status configure_logging(std::string_view level, model::LogFormat format, std::ostream& sink) {
  return configure_logging(level, format, sink, system_clock());
}

Status configure_logging(std::string_view level, model::LogFormat format, std::ostream& sink, const Clock& clock) {
  return configure(level, format, std::make_shared<spdlog::sinks::ostream_sink_mt>(sink, true), clock);
}

void log(LogLevel level, const LogFields& fields, std::string_view message) {
  if (level == LogLevel::off) return;
  std::shared_ptr<const Destination> destination;
  {
    const std::lock_guard lock(g_mutex);
    destination = current();
  }
  const auto spd_level = to_spdlog(level);
  if (!destination->logger->should_log(spd_level)) return;
  const std::string body =
      destination->format == model::LogFormat::json ? json_members(fields, message) : text_body(fields, message);
  destination->logger->log(destination->clock->now(), spdlog::source_loc{}, spd_level,
                           spdlog::string_view_t(body.data(), body.size()));
}

}  // namespace tpslurm::config
