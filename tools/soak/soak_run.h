// SoakRun: one soak from start to verdict. The simulator (random faults on every Slurm call at
// `fault_probability`: dropped answers, 500s, 2 s delays, connections closed after or in the
// middle of an answer) and a deployment are set up under `work_dir`; a Feeder journals up to
// `attempts` jobs (paced over the first two thirds of `seconds`) while `serve` runs and is SIGKILLed at a random moment
// every `kill_min_s`..`kill_max_s` seconds and restarted at once, for `seconds`. Then the drain: no more jobs, faults
// off, no kills, every job still running is ended by the simulated cluster (POST /sim/jobs/advance), until every job
// has ended with its cleanup closed or `drain_seconds` pass; then `serve` is stopped with SIGTERM and the Tally is
// taken.
//
// Time to converge after a kill: from the restart until the restarted daemon has journaled a
// status poll (when any attempt was being followed) and every attempt whose submit protocol was
// uncertain at the kill (preparing, submitting, submit_unknown, submitted; not the queue of
// `prepared` ones, where nothing was sent) has moved on. Measured for every restart; a
// restart killed again before it converged counts as not converged, with the time it had.
//
// run() prints progress lines on stdout ("soak: ..."), the figures and the final line
// `soak: N attempts, K kills, D duplicates, L losses, U unfinished cleanups`; it returns the exit
// status: 0 when D = L = U = 0 (exactly 1 each with `plant`), the drain ended in time and the
// daemon never exited on its own nor failed its final SIGTERM, 1 otherwise, 2 when the soak
// could not be set up.
#pragma once

#include <cstdint>
#include <string>

namespace tpslurm::soak {

struct SoakOptions {
  int seconds = 600;
  int attempts = 10000;
  int job_seconds = 0;  // how long a job runs in Slurm; 0: half of `seconds`
  double fault_probability = 0.05;
  int kill_min_s = 5;
  int kill_max_s = 15;
  int memory_every_s = 30;
  int drain_seconds = 300;
  int feeders = 2;
  std::uint64_t seed = 0;
  std::string poll_interval = "5s";
  std::string daemon_binary;
  std::string sim_binary;
  std::string work_dir;  // empty: a new directory under $TMPDIR (or /tmp)
  bool keep = false;     // keep work_dir even when the soak passed
  bool plant = false;    // plant one fault of each kind after the drain (plant.h)
};

int run_soak(const SoakOptions& options);

}  // namespace tpslurm::soak
