// reconcile_bench's fixture: N live attempts in a World, P% of them pending, the rest running.
//
// Two template jobs (j0000000 pending, j0000001 running) go the whole way through a
// Controller, so the journal's own API writes their rows and events. The other N-2 Slurm jobs
// are created through POST /sim/jobs/bulk carrying the tags their attempts will have; their
// journal rows are FIXTURE GENERATION, never the product's way: copies of a template's job,
// attempt and event rows written in one SQLite transaction, with the job id, submit token,
// Slurm job id, SLUID, state reason and `components` of each (journal::components_json of
// the record slurmctld lists for that job). Job ids are job_id_of(0 .. N-1).
//
// Contract: build_fixture() dies (bench_support's die()) when a step fails; the journal is
// checkpointed (wal_checkpoint(TRUNCATE)) when it returns.
#pragma once

#include <string>

#include "reconcile_bench_world.h"

namespace tpslurm::bench::reconcile_bench {

// The fixture's i-th job id: "j0000042".
std::string job_id_of(long long i);

// What building the fixture measured on the way.
struct Built {
  long long pending = 0;
  double seconds = 0;
  double listing_ms = 0;  // one full GET jobs listing of every job, client side
  double listing_bytes = 0;
  double journal_bytes = 0;
};

// Builds the fixture of world.size() attempts, `pending_percent` of them pending (at least
// one, and at least one running).
Built build_fixture(World& world, double pending_percent);

}  // namespace tpslurm::bench::reconcile_bench
