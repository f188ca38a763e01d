// SubmitDescription: what rendering produces and every REST codec consumes.
//
// It is dialect-neutral: no JSON, no field names of any REST version. A codec turns it into
// one version's submit body. Fields that Slurm must see on every component of a
// heterogeneous job (the tag, environment, site settings, time limit, signal) live once at
// job level and the codec copies them to each component, so a component can never lack
// them. Requeue is not a field: every codec always disables it on every component
// (`no_requeue: true` on v0.0.38, `requeue: false` elsewhere) because TunePlane owns retries.
//
// slurmrestd ignores `#SBATCH` lines; this description is the only authority for scheduling,
// and the script's `#SBATCH` lines are generated from it.
//
// `hold`: the job is submitted held, released by the reconciler after the identity check
// (a job update with `hold: false`). Every codec sends `hold: true` on every component, because
// Slurm holds and releases component records one by one (slurmctld job_mgr.c,
// _hold_job/_release_job at slurm-22-05-8-1 and slurm-26-05-3-1: the whole het job only
// with SchedulerParameters=whole_hetjob). Releasing the leader releases every component on
// 22.05 (v0.0.38 passes the path id to update_job_str(), which updates each component of a
// leader), but not on 25.05-26.05: their v0.0.4x handler (openapi/slurmctld/jobs.c
// _job_post_update) sets only the numeric job id, so slurmctld's update_job() updates the one
// record, so a release must address every component there.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/job_array.h"
#include "model/job_tag.h"

namespace tpslurm::model {

// One heterogeneous-job component (or the only one): placement and size.
struct SubmitComponent {
  std::string partition;
  std::string constraint;  // Slurm feature expression; empty = none (CPU-only jobs)
  int nodes = 1;
  int tasks_per_node = 1;
  int cpus_per_task = 1;
  std::int64_t memory_mb = 0;  // per node; 0 = Slurm's default
  // GPUs per node as "<gres>:<count>", e.g. "gpu:8" or "gpu:h100:1"; empty = no GPUs.
  // v0.0.38 sends it as `gres`, v0.0.4x as `tres_per_node: "gres/<this>"`.
  std::string gres_per_node;

  bool operator==(const SubmitComponent&) const = default;
};

// `--signal=B:USR1@<seconds>`: a warning signal before the time limit (and before a cancel
// takes effect), sent to the batch shell only when `batch_only`.
struct WarningSignal {
  std::string signal = "USR1";
  int seconds_before = 0;
  bool batch_only = true;

  bool operator==(const WarningSignal&) const = default;
};

struct SubmitDescription {
  JobTag tag;          // name, comment and working directory of every component
  std::string script;  // the batch script; sent with component 0
  std::string standard_output;  // absolute paths inside the attempt's logs/
  std::string standard_error;
  // The fixed minimal REST environment (PATH, LANG, ...): never the user's variables or
  // secrets, which reach the job through the attempt's env file. Order is preserved.
  std::vector<std::pair<std::string, std::string>> environment;
  std::string account;  // empty = not set (Slurm's default)
  std::string qos;
  std::string reservation;
  std::string wckey;
  bool exclusive = false;
  bool hold = false;                      // submitted held, released by the reconciler after the identity check
  std::optional<int> time_limit_minutes;  // empty = the partition's default
  std::optional<WarningSignal> signal;
  std::vector<SubmitComponent> components;  // at least one; several = heterogeneous job
  // A job array (`job.array`, "0-999%8" on every dialect): one pending record for every task,
  // submitted, held and released as one job. Never with several components: Slurm has no
  // heterogeneous arrays, so every dialect refuses that description before sending it.
  std::optional<ArraySpec> array{};
  // Per-user mode: the Unix user the job is submitted as, and so runs as; empty: the service
  // identity. Not part of the request's body: Slurm runs a job as the user who submits it.
  std::string unix_user{};

  bool heterogeneous() const { return components.size() > 1; }
  bool operator==(const SubmitDescription&) const = default;
};

}  // namespace tpslurm::model
