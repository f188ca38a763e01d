#include "unit_file.h"

namespace tpslurm::ops::testing {
namespace {

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return std::string(text.substr(first, last - first + 1));
}

}  // namespace

std::vector<std::string> UnitFile::values(std::string_view section, std::string_view key) const {
  std::vector<std::string> found;
  for (const auto& setting : settings) {
    if (setting.section == section && setting.key == key) found.push_back(setting.value);
  }
  return found;
}

std::string UnitFile::text() const {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

UnitFile parse_unit_file(std::string_view text) {
  UnitFile unit;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    const auto length = (end == std::string_view::npos ? text.size() : end) - start;
    unit.lines.emplace_back(text.substr(start, length));
    start += length + 1;
  }
  std::string section;
  for (std::size_t i = 0; i < unit.lines.size(); ++i) {
    const int number = static_cast<int>(i) + 1;
    const std::string line = trimmed(unit.lines[i]);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (line.back() == '\\') {
      unit.problems.push_back(std::to_string(number) + ": a continued line; keep every setting on one line");
      continue;
    }
    if (line.front() == '[' && line.back() == ']') {
      section = line.substr(1, line.size() - 2);
      continue;
    }
    const auto equals = line.find('=');
    if (equals == std::string::npos || section.empty()) {
      unit.problems.push_back(std::to_string(number) + ": neither a section header nor KEY=VALUE in a section");
      continue;
    }
    unit.settings.push_back({section, trimmed(line.substr(0, equals)), trimmed(line.substr(equals + 1)), number});
  }
  return unit;
}

}  // namespace tpslurm::ops::testing
