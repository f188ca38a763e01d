// Syntax checks for rendered text: every script the renderer produces must parse under bash,
// and the files the task's wrapper reads inside the container (env, command) under /bin/sh.
#pragma once

#include <string>

namespace tpslurm::render::testing {

// "" when `bash -n` accepts the script, else bash's complaint.
std::string bash_syntax_errors(const std::string& script);

// "" when `/bin/sh -n` (dash on Debian: POSIX sh) accepts the text, else its complaint.
std::string posix_sh_syntax_errors(const std::string& text);

}  // namespace tpslurm::render::testing
