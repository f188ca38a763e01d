// The tag every component of an attempt's Slurm job carries (model/job_tag.h): its name, its
// submit token's comment and its directory as the compute nodes see it. The reconciler tags
// and identifies with it; `resolve --adopt` checks an operator's job against it. Pure.
#pragma once

#include <string_view>

#include "model/job_tag.h"
#include "model/settings.h"

namespace tpslurm::storage {

model::JobTag attempt_tag(const model::Settings& settings, std::string_view job_id, int attempt,
                          std::string_view submit_token);

// The tag an attempt's job was given: the journaled name and working directory when there are
// (the deployment may have been renamed since), else as attempt_tag() computes them.
model::JobTag journaled_tag(const model::Settings& settings, std::string_view job_id, int attempt,
                            std::string_view submit_token, std::string_view tag_name, std::string_view tag_workdir);

}  // namespace tpslurm::storage
