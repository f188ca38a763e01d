#include "options.h"

#include <cctype>
#include <string>

namespace tpslurm::sim {

Result<std::int64_t> parse_millis(std::string_view text) {
  if (text == "inf" || text == "never") return std::int64_t{-1};
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 12) {
    return invalid_argument("duration \"" + std::string(text) + "\": expected a number with a unit (500ms, 2s, 1m) or inf");
  }
  std::int64_t value = std::stoll(std::string(text.substr(0, digits)));
  std::string_view unit = text.substr(digits);
  if (unit == "ms") return value;
  if (unit == "s") return value * 1000;
  if (unit == "m") return value * 60'000;
  if (unit == "h") return value * 3'600'000;
  return invalid_argument("duration \"" + std::string(text) + "\": unknown unit \"" + std::string(unit) +
                          "\"; use ms, s, m or h");
}

Result<Timing> parse_timing(std::string_view text, Timing base) {
  if (text == "manual") {
    base.automatic = false;
    return base;
  }
  base.automatic = true;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find(',', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view item = text.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return invalid_argument("--timing item \"" + std::string(item) + "\": expected phase=duration");
    }
    std::string_view phase = item.substr(0, eq);
    auto ms = parse_millis(item.substr(eq + 1));
    if (!ms) return ms.error().with_context("--timing " + std::string(phase));
    if (phase == "pending") {
      base.pending_ms = *ms;
    } else if (phase == "running") {
      base.running_ms = *ms;
    } else if (phase == "completing") {
      base.completing_ms = *ms;
    } else {
      return invalid_argument("--timing: unknown phase \"" + std::string(phase) +
                              "\"; use pending, running or completing");
    }
  }
  return base;
}

Status parse_listen(std::string_view text, std::string& host, std::uint16_t& port) {
  std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    return invalid_argument("listen address \"" + std::string(text) + "\": expected HOST:PORT, e.g. 127.0.0.1:0");
  }
  std::string_view port_text = text.substr(colon + 1);
  if (port_text.empty() || port_text.size() > 5) {
    return invalid_argument("listen address \"" + std::string(text) + "\": bad port");
  }
  for (char c : port_text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) {
      return invalid_argument("listen address \"" + std::string(text) + "\": bad port");
    }
  }
  unsigned long value = std::stoul(std::string(port_text));
  if (value > 65535) return invalid_argument("listen address \"" + std::string(text) + "\": port over 65535");
  host = std::string(text.substr(0, colon));
  port = static_cast<std::uint16_t>(value);
  return ok_status();
}

}  // namespace tpslurm::sim
