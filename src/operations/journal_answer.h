// What journaling new jobs (submission.cc) and a sweep (sweep_submission.cc) share: a journal
// group of the journal's own, and the journal's answer as the submitter sees it. Internal to
// operations/.
#pragma once

#include <functional>
#include <string>

#include "base/result.h"
#include "journal/journal.h"
#include "model/job_phase.h"

namespace tpslurm::operations::detail {

// `change` in a journal group of `journal`'s own: one commit; the change's failure first.
Status own_group(journal::Journal& journal, const std::function<Status(journal::Journal&)>& change);

// The journal's refusal of a different request under a known id (invalid_argument) becomes
// `conflict`, its words in `refusal`; other failures (a journal that cannot be written among
// them) stay errors; any other outcome is itself (the caller words `over_limit`).
Result<model::SubmitOutcome> journal_answer(const Result<model::SubmitOutcome>& outcome, std::string& refusal);

}  // namespace tpslurm::operations::detail
