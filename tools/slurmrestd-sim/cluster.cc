#include "cluster.h"

#include <algorithm>
#include <cctype>

namespace tpslurm::sim {

bool ClusterConfig::has_partition(std::string_view name) const {
  return std::find(partitions.begin(), partitions.end(), name) != partitions.end();
}

bool ClusterConfig::constraint_satisfiable(std::string_view expression) const {
  std::string word;
  auto flush = [&]() -> bool {
    bool ok = word.empty() || features.count(word) > 0;
    word.clear();
    return ok;
  };
  for (std::size_t i = 0; i < expression.size(); ++i) {
    char c = expression[i];
    if (c == '&' || c == '|' || c == ',' || c == '[' || c == ']' || c == '(' || c == ')') {
      if (!flush()) return false;
    } else if (c == '*') {
      // "feature*count": skip the count.
      if (!flush()) return false;
      while (i + 1 < expression.size() && std::isdigit(static_cast<unsigned char>(expression[i + 1]))) ++i;
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      word.push_back(c);
    }
  }
  return flush();
}

std::vector<std::string> split_csv(std::string_view text, char separator) {
  std::vector<std::string> out;
  std::string item;
  for (char c : text) {
    if (c == separator) {
      if (!item.empty()) out.push_back(item);
      item.clear();
    } else {
      item.push_back(c);
    }
  }
  if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace tpslurm::sim
