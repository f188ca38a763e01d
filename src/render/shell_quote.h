// Quoting for the two languages a rendered batch script speaks.
//
// shell_quote() turns any byte string without NUL into exactly one bash word that expands
// back to the same bytes: quotes, `$`, backticks, `;`, newlines, tabs, UTF-8, leading dashes
// and the empty string included. It is the templates' default escape, so every `{{value}}`
// is one safe word wherever it stands (never place a tag inside quotes). It uses single
// quotes only, never bash's $'...', so POSIX sh (dash, busybox) reads the same bytes: the env
// and command files, read by /bin/sh inside the container, rely on that.
//
// sbatch reads `#SBATCH` lines with its own small parser, not bash: whitespace splits
// arguments, single or double quotes group, a backslash escapes the next character, an
// unquoted `#` starts a comment, a line is never continued, and any line containing
// "hetjob" or "packjob" starts a new heterogeneous component. sbatch_quote() returns the
// argument text for that parser (breaking up those two words with an empty pair of quotes),
// or why the value cannot be written there at all (a line break, a NUL).
//
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace tpslurm::render {

std::string shell_quote(std::string_view value);

// The reason `value` cannot be an #SBATCH argument ("contains a line break", ...), if any.
std::optional<std::string> sbatch_unsafe_reason(std::string_view value);

// `value` quoted for sbatch's #SBATCH parser; invalid_argument when sbatch_unsafe_reason().
Result<std::string> sbatch_quote(std::string_view value);

}  // namespace tpslurm::render
