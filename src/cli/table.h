// A plain text table for humans: a header row, columns padded to their widest cell, two
// spaces between columns, "-" for empty cells. Machines get --json instead.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace tpslurm::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> header) : m_rows{std::move(header)} {}
  void add(std::vector<std::string> row) { m_rows.push_back(std::move(row)); }
  bool empty() const { return m_rows.size() == 1; }
  void print(std::ostream& out) const;

 private:
  std::vector<std::vector<std::string>> m_rows;
};

}  // namespace tpslurm::cli
