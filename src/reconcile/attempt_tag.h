// The tag every component of an attempt's Slurm job carries (model/job_tag.h): its name,
// its submit token's comment and its directory as the compute nodes see it. Pure.
#pragma once

#include "journal/records.h"
#include "model/job_tag.h"
#include "model/settings.h"

namespace tpslurm::reconcile {

model::JobTag attempt_tag(const model::Settings& settings, const journal::AttemptRecord& attempt);

}  // namespace tpslurm::reconcile
