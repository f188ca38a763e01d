#include "attempt_writer.h"

namespace tpslurm::render::testing {

storage::AttemptContents attempt_contents(const std::string& job_id, const AttemptInputs& inputs,
                                          const RenderedAttempt& attempt) {
  storage::AttemptContents contents;
  contents.job_id = job_id;
  contents.attempt = inputs.attempt;
  contents.submit_token = inputs.submit_token;
  contents.image_registry_path = attempt.image.registry_path;
  contents.image_local_path = attempt.image.local_path;
  contents.image_sha256 = attempt.image.sha256;
  for (const auto& dir : attempt.directories) contents.directories.push_back({dir.path, dir.mode});
  for (const auto& file : attempt.files) contents.files.push_back({file.path, file.content, file.mode, file.copy_from});
  for (const auto& log : attempt.logs) {
    contents.logs.push_back({log.name, log.component, log.stdout_path, log.stderr_path});
  }
  return contents;
}

}  // namespace tpslurm::render::testing
