// The tag of a journaled attempt's Slurm job, as it was given (storage/attempt_tag.h). Pure.
#pragma once

#include "journal/records.h"
#include "model/job_tag.h"
#include "model/settings.h"
#include "storage/attempt_tag.h"

namespace tpslurm::reconcile {

inline model::JobTag attempt_tag(const model::Settings& settings, const journal::AttemptRecord& attempt) {
  return storage::journaled_tag(settings, attempt.job_id, attempt.number, attempt.submit_token, attempt.tag_name,
                                attempt.tag_workdir);
}

}  // namespace tpslurm::reconcile
