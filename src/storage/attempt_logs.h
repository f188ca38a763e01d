// The scheduler logs of one attempt directory, read with the limits of log_tail.h: what
// `logs` prints and the platform's API serves.
//
// The attempt's manifest.json names its logs (a stdout and a stderr file per entry: "batch"
// for the job, "component-K" per heterogeneous component, "program" for the driver). A
// selection picks them by component (unset: every log) and by stream, and reads each one as a
// tail, or as a page from an offset (the same offset for each file selected).
//
// Errors (the whole call): not_found when the attempt has no manifest (it never got its
// directory: not prepared yet, or preparing failed); invalid_argument when it has no log of
// the component asked for (the message lists the components it has); the manifest's own
// errors (corrupt). Per file, in its `content`: `missing` when it (or a directory on its way)
// does not exist; the errors of attempt_tree.h (invalid_argument when the log or a directory on
// its way is a symbolic link, never followed, or the log is not a regular file, never read) and
// of log_tail.h; corrupt for a manifest path that is empty, absolute or climbs out of the
// attempt directory with ".."; such paths are never opened.
//
// Reads only; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "storage/log_tail.h"

namespace tpslurm::storage {

enum class LogStream { out, err };

std::string_view to_string(LogStream stream);  // "stdout", "stderr"

struct LogSelection {
  std::optional<int> component;  // -1 = the job's own log ("batch"); unset = every log
  LogStream stream = LogStream::out;
  std::optional<std::uint64_t> offset;  // unset: the tail
  Growing growing = Growing::yes;       // for pages: whether the job may still write
  LogLimits limits;
};

struct AttemptLogFile {
  std::string name;  // as the manifest names the log
  int component = -1;
  LogStream stream = LogStream::out;
  std::string path;  // relative to the attempt directory, as the manifest has it
  Result<LogTail> content;
};

// In the manifest's order.
Result<std::vector<AttemptLogFile>> read_attempt_logs(const std::string& attempt_dir, const LogSelection& selection);

}  // namespace tpslurm::storage
