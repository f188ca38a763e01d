// An attempt's layout for the storage tests that write one with a given access: job `job_id`,
// attempt 1, the image `runtimes/img.sqsh` under `root` (holding "image bytes"), logs/,
// scratch/ and credentials/, and job.sh, env and a credential copy holding `credential` (or, when
// `credential_from` is given, copied from that file), each with the modes of `access`.
#pragma once

#include <string>

#include "base/digest.h"
#include "model/attempt_layout.h"

namespace tpslurm::storage {

inline model::AttemptLayout sample_layout(const std::string& root, const std::string& job_id,
                                          model::FileAccess access, const std::string& credential,
                                          const std::string& credential_from = {}) {
  const model::AttemptModes modes = model::attempt_modes(access);
  const std::string image = root + "/runtimes/img.sqsh";
  model::AttemptLayout c;
  c.job_id = job_id;
  c.attempt = 1;
  c.submit_token = "0b6f8c1e-4d2a-4c1f-9a7e-3f1d2c4b5a69";
  c.image = {"runtimes/img.sqsh", image, image, sha256_hex("image bytes")};
  c.directories = {
      {"logs", modes.writable_directory}, {"scratch", modes.writable_directory}, {"credentials", modes.directory}};
  c.files = {{"job.sh", "#!/bin/bash\n", modes.file, {}},
             {"env", "A=b\n", modes.file, {}},
             {"credentials/ingest_token", credential, modes.file, credential_from}};
  return c;
}

}  // namespace tpslurm::storage
