// The faults that happen at the site: the token turning bad, a journal restored from an older
// backup, the deployment renamed, links, FIFOs and hostile files planted in a running attempt's
// logs/.
#include <chrono>
#include <cstdio>
#include <thread>

#include "explore_faults.h"
#include "explore_hostile.h"

namespace tpslurm::soak {

void auth_fails(const Action& action, World& world) {
  if (!action.follow_up) {
    auto seq = world.journal.last_event_seq();
    world.auth_seq = seq.ok() ? *seq : -1;
    std::string burst;
    if (auth_burst(action) && world.backup_file.empty()) {
      for (int i = 0; i < 4; ++i) {
        char id[32];
        std::snprintf(id, sizeof id, "exp-b%02d", ++world.burst_jobs);
        if (world.deployment.submit(id) != 0) world.findings.push_back(std::string("submit of ") + id + " failed");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(auth_burst_ms(action)));
      burst = "4 jobs submitted, " + std::to_string(auth_burst_ms(action)) + " ms later ";
    }
    auto bad = world.tokens.bad();
    return note(world, action, bad.ok() ? burst + "the token file holds a token signed by another key"
                                        : "cannot write the bad token: " + bad.error().message());
  }
  auto good = world.tokens.good();
  auto blocked = world.auth_seq >= 0 ? world.journal.entered("submit_unknown", world.auth_seq)
                                     : Result<std::vector<AttemptKey>>(std::vector<AttemptKey>{});
  const std::size_t n = blocked.ok() ? blocked->size() : 0;
  note(world, action, std::string(good.ok() ? "the good token back; " : "cannot restore the token; ") +
                          std::to_string(n) + " attempt(s) blocked meanwhile");
  if (n > kPassThreads) {
    world.findings.push_back("auth: one bad token blocked " + std::to_string(n) + " attempts (at most " +
                             std::to_string(kPassThreads) + ", one per pass thread)");
  }
  world.auth_seq = -1;
}

void restore_backup(const Action& action, World& world) {
  if (!action.follow_up) {
    world.backup_file = world.work_dir + "/journal-backup.db";
    const int code = world.deployment.command({"journal", "backup", world.backup_file});
    if (code != 0) world.findings.push_back("journal backup exited " + std::to_string(code) + " while serve ran");
    return note(world, action, code == 0 ? "backup written; no job is fed until it is restored" : "backup failed");
  }
  world.daemon.stop("before a restore");
  const int code = world.deployment.command(
      {"journal", "restore", world.backup_file, "--reason", "explore: restored from an older backup"});
  if (code != 0) world.findings.push_back("journal restore exited " + std::to_string(code));
  world.backup_file.clear();
  world.daemon.start();
  note(world, action, code == 0 ? "restored; serve started in safe mode" : "restore failed");
}

void rename(const Action& action, World& world) {
  world.daemon.stop("before a rename");
  const std::string to = "explore" + std::string(1, static_cast<char>('a' + world.instances.size()));
  world.deployment.set_instance(to);
  world.instances.push_back(to);
  std::string finding;
  if (!world.daemon.refuses(15, finding)) world.findings.push_back("rename: " + finding);
  const int code = world.deployment.command({"journal", "move-deployment", "--reason", "explore: instance renamed"});
  if (code != 0) world.findings.push_back("journal move-deployment exited " + std::to_string(code));
  world.daemon.start();
  note(world, action, "instance " + to + (finding.empty() ? ": serve refused it" : ": " + finding) +
                          (code == 0 ? ", deployment moved, serve started" : ", move-deployment failed"));
}

void plant(const Action& action, World& world) {
  auto live = attempts_in(world, {"running"});
  if (live.empty()) live = attempts_in(world, {"pending", "submitted"});
  if (live.empty()) return note(world, action, "no attempt in Slurm to plant in");
  const AttemptRow& a = pick(live, action.pick);
  auto planted = plant_links(a.attempt_dir + "/logs", world.outside);
  if (planted.ok()) ++world.planted;
  note(world, action, a.job_id + "/" + std::to_string(a.number) + " (" + a.state + "): " +
                          (planted.ok() ? *planted : planted.error().message()));
}

namespace {

void plant_hostile(const Action& action, World& world, const AttemptRow& a) {
  auto planted = plant_hostile_files(a.attempt_dir + "/logs", world.outside.directory());
  note(world, action, a.job_id + "/" + std::to_string(a.number) + " (" + a.state + "): " +
                          (planted.ok() ? *planted : planted.error().message()));
}

}  // namespace

// In a running attempt's logs/ (only a job that runs writes there: files in the logs/ of one that
// never ran would say it did); when none runs, in that of a job of its own once it runs.
void hostile_files(const Action& action, World& world) {
  if (const auto running = attempts_in(world, {"running"}); !running.empty()) {
    return plant_hostile(action, world, pick(running, action.pick));
  }
  if (!world.backup_file.empty()) return note(world, action, "none runs, and no job is fed before the restore");
  const std::string job = own_job(world, "exp-h");
  note(world, action, "no attempt runs: " + job + " submitted to plant in");
  world.watches.push_back(when_released(job, [action](World& w, const AttemptRow& a, const SimJob& slurm_job) {
    if (slurm_job.state == "PENDING") (void)step_job(w, slurm_job.id, R"({"state": "RUNNING"})");
    if (a.state != "running") return false;  // until serve has seen it run
    plant_hostile(action, w, a);
    return true;
  }));
}

}  // namespace tpslurm::soak
