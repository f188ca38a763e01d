// Request targets as slurmrestd parses them.
//
// Paths: only RFC 3986 unreserved characters, "%XX" escapes and "/" are allowed (a
// literal "+" makes the whole path invalid: 400 up to 25.05, 404 from 25.11); escapes
// are decoded per segment, empty segments dropped. Queries: "&"-separated, "+" is a
// space, "%XX" decoded, repeated keys kept in order. A literal "," anywhere in the query
// is recorded because 26.05 answers it with a bare 500 "Unspecified error".
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tpslurm::sim {

struct Target {
  bool path_valid = true;
  bool query_valid = true;
  bool query_has_literal_comma = false;
  std::string path;  // raw, as received
  std::vector<std::string> segments;
  std::vector<std::pair<std::string, std::string>> query;

  // Last value of a query key, or nullptr.
  const std::string* param(std::string_view key) const;
  std::vector<std::string> params(std::string_view key) const;
};

Target parse_target(std::string_view target);

}  // namespace tpslurm::sim
