// Env files as systemd's EnvironmentFile= reads them, so one file serves both systemd and
// `tuneplane-slurm --config FILE`:
//
//   KEY=value           leading/trailing blanks dropped, interior kept, backslash escapes
//   KEY='verbatim'      single quotes: anything but ', may span lines, no escapes
//   KEY="a \"b\" $x"    double quotes: \" \\ \` \$ escapes, backslash-newline continues
//   # comment, ; comment, blank lines
//
// A line without '=' is ignored by systemd; here it is reported as a problem, because a
// typo must not silently drop a setting. Keys must be shell variable names. Pure; no I/O.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "model/problems.h"

namespace tpslurm::config {

struct EnvFileEntry {
  std::string key;
  std::string value;
  int line = 0;  // where the assignment starts, 1-based

  bool operator==(const EnvFileEntry&) const = default;
};

// `source` names the file in problems ("/etc/tuneplane-slurm.env:4").
Result<std::vector<EnvFileEntry>, model::Problems> parse_env_file(std::string_view text, std::string_view source);

}  // namespace tpslurm::config
