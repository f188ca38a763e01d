// A SubmitDescription as stable, human-readable JSON: what `render --json` prints and what
// the golden files pin. Dialect-neutral (the field names are this project's, not any REST
// version's); the script itself is left out (it has its own golden file) and represented by
// its SHA-256. A job array adds `array` ("0-999%8") last; a single job's JSON has no such key.
// Deterministic: fixed key order, two-space indentation, trailing newline.
// Pure function; thread-safe.
#pragma once

#include <string>

#include "model/submit_description.h"

namespace tpslurm::render {

std::string submit_description_json(const model::SubmitDescription& description);

}  // namespace tpslurm::render
