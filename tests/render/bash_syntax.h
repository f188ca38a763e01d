// `bash -n` for rendered scripts: every script the renderer produces must parse.
#pragma once

#include <string>

namespace tpslurm::render::testing {

// "" when `bash -n` accepts the script, else bash's complaint.
std::string bash_syntax_errors(const std::string& script);

}  // namespace tpslurm::render::testing
