// How many times `needle` occurs in `text`, overlapping occurrences included: what tests count
// in logs and journals.
#pragma once

#include <string_view>

namespace tpslurm::testing {

inline int count_of(std::string_view text, std::string_view needle) {
  int n = 0;
  for (auto at = text.find(needle); at != std::string_view::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace tpslurm::testing
