// A reader of Prometheus' text exposition format (version 0.0.4) for tests: what a scraper
// would make of the text, independent of the code that wrote it. Every sample line becomes a
// Sample (name, labels unescaped, value); `# TYPE` lines give each family's type; a line that
// is neither a comment, blank nor a well-formed sample is kept in `bad_lines`.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpslurm::testing {

using Labels = std::map<std::string, std::string>;

struct Sample {
  std::string name;
  Labels labels;
  double value = 0;
};

struct Exposition {
  std::vector<Sample> samples;
  std::map<std::string, std::string> types;  // family name -> counter, gauge, histogram, ...
  std::vector<std::string> bad_lines;

  // The value of the one sample with this name and exactly these labels.
  std::optional<double> value(std::string_view name, const Labels& labels = {}) const;
  // Every sample of `name` (any labels).
  std::vector<Sample> all(std::string_view name) const;
};

Exposition parse_exposition(std::string_view text);

}  // namespace tpslurm::testing
