#include "support/exposition.h"

#include <cctype>
#include <cstdlib>
#include <sstream>

namespace tpslurm::testing {
namespace {

bool name_char(char c, bool first) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':' ||
         (!first && std::isdigit(static_cast<unsigned char>(c)));
}

// Reads `name{a="x",b="y"} value` (labels optional); false when the line is not that.
bool parse_sample(std::string_view line, Sample& out) {
  std::size_t i = 0;
  while (i < line.size() && name_char(line[i], i == 0)) ++i;
  if (i == 0) return false;
  out.name = std::string(line.substr(0, i));
  if (i < line.size() && line[i] == '{') {
    ++i;
    while (i < line.size() && line[i] != '}') {
      const std::size_t start = i;
      while (i < line.size() && name_char(line[i], i == start)) ++i;
      if (i == start || i + 1 >= line.size() || line[i] != '=' || line[i + 1] != '"') return false;
      const std::string label(line.substr(start, i - start));
      i += 2;
      std::string value;
      while (i < line.size() && line[i] != '"') {
        if (line[i] == '\\' && i + 1 < line.size()) {
          ++i;
          value += line[i] == 'n' ? '\n' : line[i];
        } else {
          value += line[i];
        }
        ++i;
      }
      if (i >= line.size()) return false;
      ++i;
      out.labels[label] = value;
      if (i < line.size() && line[i] == ',') ++i;
    }
    if (i >= line.size()) return false;
    ++i;
  }
  if (i >= line.size() || line[i] != ' ') return false;
  const std::string rest(line.substr(i + 1));
  if (rest == "+Inf" || rest == "-Inf" || rest == "NaN") {
    out.value = rest == "NaN" ? 0 : (rest == "+Inf" ? 1e308 : -1e308);
    return true;
  }
  char* end = nullptr;
  out.value = std::strtod(rest.c_str(), &end);
  return end != rest.c_str() && (*end == '\0' || *end == ' ');
}

}  // namespace

std::optional<double> Exposition::value(std::string_view name, const Labels& labels) const {
  std::optional<double> found;
  for (const auto& sample : samples) {
    if (sample.name != name || sample.labels != labels) continue;
    if (found) return std::nullopt;  // two samples of one series: not well-formed
    found = sample.value;
  }
  return found;
}

std::vector<Sample> Exposition::all(std::string_view name) const {
  std::vector<Sample> out;
  for (const auto& sample : samples) {
    if (sample.name == name) out.push_back(sample);
  }
  return out;
}

Exposition parse_exposition(std::string_view text) {
  Exposition out;
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    if (line.rfind("# TYPE ", 0) == 0) {
      std::istringstream words(line.substr(7));
      std::string name, type;
      if (words >> name >> type) {
        out.types[name] = type;
        continue;
      }
      out.bad_lines.push_back(line);
      continue;
    }
    if (line[0] == '#') continue;
    Sample sample;
    if (parse_sample(line, sample)) {
      out.samples.push_back(std::move(sample));
    } else {
      out.bad_lines.push_back(line);
    }
  }
  return out;
}

}  // namespace tpslurm::testing
