// tp-soak: the soak of issue 12 — the real `serve` against tools/slurmrestd-sim with random
// faults, SIGKILLed at random and restarted for a bounded time, then drained and tallied (see
// soak_run.h). Loopback only. Exit status: 0 clean, 1 duplicates, losses, unfinished cleanups
// or a daemon that exited on its own, 2 the soak could not run.
#include <CLI/CLI.hpp>

#include "soak_run.h"

int main(int argc, char** argv) {
  tpslurm::soak::SoakOptions o;
  o.daemon_binary = TP_BINARY;
  o.sim_binary = SIM_BINARY;
  int minutes = 0;
  CLI::App app{"tp-soak: random SIGKILLs of tuneplane-slurm serve against the simulator with random faults"};
  app.add_option("--minutes", minutes, "how long to kill and restart the daemon, in minutes (default 10)");
  app.add_option("--seconds", o.seconds, "the same in seconds (for CI)")->capture_default_str();
  app.add_option("--attempts", o.attempts, "jobs to journal while the daemon is killed")->capture_default_str();
  app.add_option("--job-seconds", o.job_seconds, "how long each job runs in Slurm (default: half the duration)");
  app.add_option("--fault-probability", o.fault_probability, "chance of a fault on each Slurm call")
      ->capture_default_str();
  app.add_option("--kill-min", o.kill_min_s, "shortest life of a daemon between kills, seconds")->capture_default_str();
  app.add_option("--kill-max", o.kill_max_s, "longest life of a daemon between kills, seconds")->capture_default_str();
  app.add_option("--memory-every", o.memory_every_s, "seconds between the resident-memory lines")
      ->capture_default_str();
  app.add_option("--drain-seconds", o.drain_seconds, "bound on the final quiet drain")->capture_default_str();
  app.add_option("--feeders", o.feeders, "threads running `tuneplane-slurm submit`")->capture_default_str();
  app.add_option("--poll-interval", o.poll_interval, "the daemon's TUNEPLANE_POLL_INTERVAL")->capture_default_str();
  app.add_option("--seed", o.seed, "seed of the kill times and the faults (default: random, printed)");
  app.add_option("--daemon", o.daemon_binary, "the tuneplane-slurm binary")->capture_default_str();
  app.add_option("--sim", o.sim_binary, "the slurmrestd-sim binary")->capture_default_str();
  app.add_option("--work-dir", o.work_dir, "where the run keeps its files (default: a new one under $TMPDIR)");
  app.add_flag("--keep", o.keep, "keep the work directory even when the soak passed");
  app.add_flag(
      "--plant", o.plant,
      "after the drain, plant a duplicate, a loss and an unfinished cleanup; pass only if exactly those are counted");
  CLI11_PARSE(app, argc, argv);
  if (minutes > 0) o.seconds = minutes * 60;
  if (o.seconds < 1 || o.attempts < 1 || o.kill_min_s < 1 || o.kill_max_s < o.kill_min_s || o.feeders < 1 ||
      o.fault_probability < 0 || o.fault_probability > 1) {
    std::fprintf(stderr,
                 "tp-soak: --seconds, --attempts, --feeders and --kill-min must be positive, "
                 "--kill-max at least --kill-min, --fault-probability within 0..1\n");
    return 2;
  }
  // An exception is a bug of the soak's own; caught here so that the destructors stop the
  // simulator and the daemon instead of leaving them running.
  try {
    return tpslurm::soak::run_soak(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tp-soak: %s\n", e.what());
    return 2;
  }
}
