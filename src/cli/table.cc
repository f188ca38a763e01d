#include "cli/table.h"

#include <algorithm>

namespace tpslurm::cli {
namespace {

// Display width in code points, so UTF-8 names line up.
std::size_t width(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

}  // namespace

void Table::print(std::ostream& out) const {
  std::vector<std::size_t> widths;
  for (const auto& row : m_rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], std::max<std::size_t>(1, width(row[i])));
  }
  for (const auto& row : m_rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const std::string cell = row[i].empty() ? "-" : row[i];
      line += cell;
      if (i + 1 < row.size()) line += std::string(widths[i] - width(cell) + 2, ' ');
    }
    out << line << "\n";
  }
}

}  // namespace tpslurm::cli
