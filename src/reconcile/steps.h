// The steps of a pass, one per attempt state (pass.h describes them). Internal to
// reconcile/. Each takes the Step of the pass and says how it ended.
#pragma once

#include "reconcile/step.h"

namespace tpslurm::reconcile {

StepEnd start_attempt(Step& step);         // no live attempt: a new one, or the job ends
StepEnd prepare(Step& step);               // preparing -> prepared
StepEnd send_submit(Step& step);           // prepared -> submitting -> classified
StepEnd mark_unknown(Step& step);          // submitting found without a receipt
StepEnd search_blocked(Step& step);        // submit_unknown: evidence, the cycle's search, adopt
StepEnd identify_and_release(Step& step);  // submitted: identify, then release when held
StepEnd apply_cancel(Step& step);          // a cancel desire on an attempt Slurm may hold
StepEnd clean_interrupted(Step& step);     // an attempt that ended before reaching Slurm

}  // namespace tpslurm::reconcile
