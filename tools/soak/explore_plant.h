// Planting (`tp-explore --plant`): after the drain, with serve stopped, one case of each of three
// invariants is put into the real data — a second started Slurm job carrying a succeeded
// attempt's name (a duplicate run), a started Slurm job named as the next attempt of another
// succeeded job (a job run twice: the first attempt decided no retry), and a third attempt's
// closed cleanup reopened in the journal (stuck) — so that a whole run shows its verdict catching
// them. A planted run passes only when it counts exactly these.
#pragma once

#include <string>

#include "base/result.h"
#include "explore_world.h"

namespace tpslurm::soak {

// What was planted, in words; an error when fewer than three succeeded attempts were there.
Result<std::string> plant_explore_faults(World& world);

}  // namespace tpslurm::soak
