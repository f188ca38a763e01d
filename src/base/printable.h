// Text that came from someone else — a file name a job left in its attempt directory, a value a
// caller passed — made safe to show wherever the daemon shows text: a log line, a journal
// event, a JSON document, a terminal, a table of every tenant's jobs.
//
// printable() keeps printable ASCII and valid UTF-8 as they are and escapes the rest, so the
// result is valid UTF-8, one line, and holds no quote or backslash that could end or bend the
// quoting it is put in:
//   \  -> \\          "  -> \"
//   a byte below 0x20, 0x7f, or a byte that is not part of a valid UTF-8 sequence -> \xHH
//   a C1 control (U+0080-U+009F), a line or paragraph separator (U+2028, U+2029) or a
//   character that reorders text (U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) -> \uHHHH
// Hex digits are lower case. The escapes are unambiguous (a backslash is always escaped), so
// the original bytes can be recovered: undo \\ and \", \xHH is that byte, \uHHHH that
// character in UTF-8.
//
// utf8_length() is the rule printable() and storage's valid_utf8() share: the length of the
// valid UTF-8 sequence that starts at `text[at]`, or 0 when none does there (a stray
// continuation byte, a truncated sequence, an overlong form, a UTF-16 surrogate, a value past
// U+10FFFF). Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tpslurm {

std::string printable(std::string_view text);

std::size_t utf8_length(std::string_view text, std::size_t at);

}  // namespace tpslurm
