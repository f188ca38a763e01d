// Problems: every defect found in one piece of input, collected rather than stopping at
// the first, each naming where it is (a JSON path such as `spec.pools[1].gpu_series`),
// the offending value and the fix.
//
// Validators take a Problems& and keep going; the caller refuses the input when any
// problem was recorded. to_text() is what `validate` prints: one line per problem.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

namespace tpslurm::model {

struct Problem {
  std::string path;     // "spec.pools[1].gpu_series"; empty for the document as a whole
  std::string value;    // the offending value as shown to users (quoted string, number); may be empty
  std::string message;  // what is wrong; the fix

  // `spec.pools[1].gpu_series "h200": no slurm_constraint ...`: what users read.
  std::string to_string() const;
  bool operator==(const Problem&) const = default;
};

class Problems {
 public:
  void add(std::string path, std::string message);
  void add(std::string path, std::string value, std::string message);
  // Appends every problem of another list.
  void append(const Problems& other);
  bool empty() const { return m_list.empty(); }
  std::size_t size() const { return m_list.size(); }
  const std::vector<Problem>& list() const { return m_list; }

  // One problem per line, in the order found.
  std::string to_text() const;
  // An invalid_argument Error carrying to_text().
  Error to_error() const;

 private:
  std::vector<Problem> m_list;
};

// Quotes a user value for a message: JSON-style escapes, cut at 80 bytes with "…".
std::string quote_value(std::string_view value);

}  // namespace tpslurm::model
