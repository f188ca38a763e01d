// Writes a rendered attempt the way the CLI and the reconciler do: the renderer's file list
// converted to storage's AttemptContents, then storage::write_attempt_directory().
#pragma once

#include <string>

#include "render/renderer.h"
#include "storage/attempt_directory.h"

namespace tpslurm::render::testing {

storage::AttemptContents attempt_contents(const std::string& job_id, const AttemptInputs& inputs,
                                          const RenderedAttempt& attempt);

}  // namespace tpslurm::render::testing
