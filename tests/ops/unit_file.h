// UnitFile: a systemd unit file read for tests — its `[Section]` headers and `Key=Value`
// assignments in order, each with its line, so that a test can ask for a setting's values
// and rewrite one line of the real file while keeping every other byte. Comments (`#`, `;`)
// and blank lines are kept as text only. A backslash continuation, a line outside a section
// or a line that is neither is a problem the parser reports. Pure; no I/O.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tpslurm::ops::testing {

struct UnitSetting {
  std::string section;  // "Service"
  std::string key;      // "ProtectSystem"
  std::string value;    // "strict", blanks around '=' dropped
  int line = 0;         // 1-based
};

struct UnitFile {
  std::vector<std::string> lines;  // the text, one entry per line, without the newline
  std::vector<UnitSetting> settings;
  std::vector<std::string> problems;  // "LINE: what is wrong"

  // Every value assigned to section.key, in order (systemd adds most list settings up).
  std::vector<std::string> values(std::string_view section, std::string_view key) const;
  // The text again, each line ending in a newline.
  std::string text() const;
};

UnitFile parse_unit_file(std::string_view text);

}  // namespace tpslurm::ops::testing
