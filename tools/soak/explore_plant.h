// Planting (`tp-explore --plant`): one case of each invariant put into a real run, so that a whole
// run shows its verdict catching it; a planted run passes only when it counts exactly these:
//   plant_at_start (as the timeline begins): a job of its own, exp-pNN, kept running in Slurm
//     and cancelled with a grace of 2 s while serve is stopped; serve is started again after the
//     check: a late kill (G)
//   plant_before_drain (after the timeline): another, whose Slurm job is stepped COMPLETED and
//     kept COMPLETING (`auto_progress: false`), so that its cleanup waits in epilog_pending until
//     the drain's `cleanup --force`: an escape needed (O). Late, so that the operator's patience,
//     which grows with an attempt's age, stays short.
//   Both leave watches; the run goes on until they are done.
//   plant_after_drain (serve running): the client's line taken out of the API's tokens file and
//     one request made, refused with 401 (A); the line put back.
//   plant_explore_faults (serve stopped): a second started Slurm job carrying a succeeded
//     attempt's name (D), a started Slurm job named as the next attempt of another succeeded job
//     (R: the first attempt decided no retry), a third attempt's closed cleanup reopened in the
//     journal (W) and a retry decision saying it never ran added to its end (C: it was given
//     nodes), and a foreign job submitted and cancelled (J).
#pragma once

#include <string>

#include "base/result.h"
#include "explore_world.h"

namespace tpslurm::soak {

// The figures a planted run must count, each exactly, and nothing else.
struct Planted {
  static constexpr long duplicate_runs = 1, runs_twice = 1, free_retries_of_a_run = 1, escapes_needed = 1, stuck = 1,
                        foreign_touched = 1, api_refusals = 1, late_kills = 1;
};

void plant_at_start(World& world);
void plant_before_drain(World& world);
// What was planted, in words; an error when the client was not refused.
Result<std::string> plant_after_drain(World& world);
// What was planted, in words; an error when fewer than three succeeded attempts were there.
Result<std::string> plant_explore_faults(World& world);

}  // namespace tpslurm::soak
