// Bounded reads of one log file (docs/architecture.md §5): what `logs` prints and the platform's
// API serves, with the same limits.
//
// read_log_tail() returns the end of the file: at most `limits.max_bytes` and at most
// `limits.max_lines` lines, whichever limit is hit first. The cut falls on a line boundary (a
// partly covered first line is dropped); only when the file's last line alone is longer than
// the byte limit does it fall inside that line, and then on a UTF-8 boundary. The tail shows a
// last line that has no newline yet; the next page starts at the end of the file.
//
// read_log_page() returns the bytes from `offset` forward, within the same limits, ending on a
// line boundary. A last line without its newline is left for the next page while the file may
// still grow (Growing::yes) unless it alone exceeds the byte limit (then it is cut on a UTF-8
// boundary); once nothing writes it any more (Growing::no) it is returned. Following
// next_offset from 0 covers a file exactly once, without overlap or gap. The page starts
// exactly at `offset`, whatever byte that is; the next_offset reported is never inside a valid
// UTF-8 sequence.
//
// Bytes that are not valid UTF-8 are passed through unchanged: the boundary rule only keeps a
// valid sequence from being split at a cut.
//
// Both read a log already open: attempt_logs.h opens it beneath its attempt directory
// (attempt_tree.h), never through a link and never a special file; `path` names it in errors.
// An empty file is a result (`empty`), not an error; a missing one is the opener's `missing`.
// Errors: invalid_argument for limits too small to hold a UTF-8 character or a line, an offset
// past the end, a descriptor that is not a regular file; other read failures as system_error()
// makes them. Memory is bounded by the limit: the file is read with positioned reads of at most
// max_bytes + 1 bytes, never whole.
//
// Pure functions of the file's content; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace tpslurm::storage {

struct LogLimits {
  std::size_t max_bytes = 64 * 1024;  // at least 4: room for any UTF-8 character
  std::size_t max_lines = 2000;       // at least 1
};

// Whether something may still append to the file (the attempt's job has not ended).
enum class Growing { yes, no };

enum class LogFileState { present, empty, missing };

struct LogTail {
  LogFileState state = LogFileState::missing;
  std::uint64_t file_size = 0;
  std::uint64_t begin = 0;  // the bytes returned: [begin, end) of the file
  std::uint64_t end = 0;
  std::string text;
  std::uint64_t next_offset = 0;              // where the next page starts
  std::uint64_t bytes_before = 0;             // left out before `begin` (== begin)
  std::uint64_t bytes_after = 0;              // left out after `end` (== file_size - end)
  std::optional<std::uint64_t> lines_before;  // lines (or parts of one) in those bytes, when
  std::optional<std::uint64_t> lines_after;   // they were read anyway; unset otherwise
  bool starts_mid_line = false;               // the byte before `begin` is not a newline
  bool ends_mid_line = false;                 // text is not empty and does not end with a newline
  bool partial_line_held = false;             // pages: the bytes after `end` are a last line still being written
};

Result<LogTail> read_log_tail(int fd, const std::string& path, LogLimits limits = {});
Result<LogTail> read_log_page(int fd, const std::string& path, std::uint64_t offset, Growing growing,
                              LogLimits limits = {});

// `text` with every byte that is not part of a valid UTF-8 sequence replaced by U+FFFD, for
// output that must be valid UTF-8 (JSON).
std::string valid_utf8(std::string_view text);

}  // namespace tpslurm::storage
