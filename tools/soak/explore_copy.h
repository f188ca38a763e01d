// A copy behind the daemon's back: one held Slurm job carrying `tag` (name, comment and working
// directory of an attempt), submitted through slurmrestd as a re-sent POST would have been, with
// a token minted from the simulator's key for `user`. What a site sees when a submit answer was
// lost and someone (a retrying proxy, a person) sent it again; with another user and a tag of
// its own, a foreign job. Thread-compatible.
#pragma once

#include <cstdint>
#include <string>

#include "base/result.h"
#include "model/job_tag.h"

namespace tpslurm::soak {

// The new job's id; an error with Slurm's words when it was not created.
Result<std::uint32_t> submit_held_copy(const std::string& slurm_url, const std::string& key_file,
                                       const model::JobTag& tag, const std::string& user = "root");

}  // namespace tpslurm::soak
