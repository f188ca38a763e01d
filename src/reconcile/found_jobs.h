// FoundJob: a Slurm job found for an attempt — by its receipt, its evidence file, a search by
// tag or an operator — as the components that carry the attempt's tag, grouped by het job so
// that components are never mistaken for copies. Internal to reconcile/.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/job_snapshot.h"
#include "slurm/slurm_client.h"

namespace tpslurm::reconcile {

struct FoundJob {
  std::uint32_t leader_id = 0;  // the het leader's id, or the job's own
  std::string leader_sluid;
  std::vector<model::JobSnapshot> components;
  std::string source;  // "slurmctld job list", "slurmdbd job search", "evidence", ...

  // Still live in slurmctld (not final): a copy that could run.
  bool live() const;
  // A component ran or runs (ran()): the copy ran.
  bool started() const;
};

// Whether Slurm gave the record nodes (or it runs or is suspended). Not its start time: Slurm
// sets the start time of a job that ends without starting (cancelled while pending) to its end.
bool ran(const model::JobSnapshot& record);

// Which of the copies of one attempt Slurm holds is the attempt's job: the first that started
// (it ran or runs: never run it twice), else the first still live (it can still run), else none
// (every copy ended without running: found.size()).
std::size_t copy_to_keep(const std::vector<FoundJob>& found);

// Groups records by het job (leader id), lowest leader id first.
std::vector<FoundJob> group_found(const std::vector<model::JobSnapshot>& records, const std::string& source);
std::vector<FoundJob> group_matches(const std::vector<slurm::SearchMatch>& matches);

}  // namespace tpslurm::reconcile
