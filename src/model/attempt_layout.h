// AttemptLayout: everything one attempt directory holds, as rendering decides it and storage
// writes it (and the reconciler later reads back): its identity, the image it runs, the
// directories and files to create, and the scheduler log files its job will write.
//
//   <storage root>/slurm/jobs/<job_id>/attempts/<n>/
//     job.sh, env, credentials/ingest_token, logs/, scratch/, manifest.json (written last)
//
// Who may use those files (docs/architecture.md §7): the daemon's service account owns them; jobs
// run as another user (TUNEPLANE_SLURM_REST_USER). With a group the two share
// (TUNEPLANE_STORAGE_GROUP) the job user may read what its attempt runs (job.sh, env, its
// credential copy) and write only logs/ and scratch/; without one the two are the same user and
// everything is the owner's alone. Nobody else may read anything, least of all a credential.
//
// Pure values; paths inside the attempt are relative to its directory.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tpslurm::model {

// The part of the storage root that is the program's own: every job's attempts and
// credentials. A request may never mount it (nor anything that contains it).
inline constexpr std::string_view kProgramDir = "slurm";

// Evidence the batch script writes (in logs/, the only place besides scratch/ where the job
// may write): which Slurm job it became, as its first act; its exit status, as its last.
inline constexpr std::string_view kJobEvidenceFile = "logs/slurm-job.json";
inline constexpr std::string_view kExitEvidenceFile = "logs/exit.json";

// What an attempt is rendered for: its number, token and where its directory is.
struct AttemptInputs {
  int attempt = 1;
  std::string submit_token;         // a UUID: goes into the job's comment
  std::string local_attempt_dir;    // the directory as this host sees it (where files are written)
  std::string cluster_attempt_dir;  // the same directory as the compute nodes see it
  std::string job_credential_path;  // the job's 0400 ingest credential (local path); empty = none
};

struct AttemptModes {
  unsigned directory = 0700;           // the attempt, credentials/, the program's tree above it
  unsigned file = 0400;                // job.sh, env, the credential copy, manifest.json
  unsigned writable_directory = 0700;  // logs/ and scratch/: the job writes there
};

// shared_group: 0750 / 0440 / 2770 (the set-group-id bit keeps what the job writes in the
// group); owner only: 0700 / 0400 / 0700.
constexpr AttemptModes attempt_modes(bool shared_group) {
  if (shared_group) return {0750, 0440, 02770};
  return {};
}

struct AttemptDirectory {
  std::string path;  // relative to the attempt directory
  unsigned mode = 0750;

  bool operator==(const AttemptDirectory&) const = default;
};

// A file of the attempt directory: `content` is written, or, when `copy_from` is set, the
// bytes of that local file are copied (the attempt's copy of the job's credential).
struct AttemptFile {
  std::string path;  // relative to the attempt directory
  std::string content;
  unsigned mode = 0440;
  std::string copy_from;

  bool operator==(const AttemptFile&) const = default;
};

// A pair of scheduler log files of the attempt.
struct AttemptLog {
  std::string name;         // "batch", "component-0", "program", ...
  int component = -1;       // the heterogeneous component whose nodes write it; -1 = the job
  std::string stdout_path;  // relative to the attempt directory
  std::string stderr_path;

  bool operator==(const AttemptLog&) const = default;
};

// The image the job runs, as the registry names it and as each side sees it.
struct AttemptImage {
  std::string registry_path;  // relative to the storage root
  std::string local_path;
  std::string cluster_path;
  std::string sha256;  // the registry's value, verified before anything is written

  bool operator==(const AttemptImage&) const = default;
};

struct AttemptLayout {
  std::string job_id;
  int attempt = 0;
  std::string submit_token;
  AttemptImage image;
  std::vector<AttemptDirectory> directories;  // created before the files
  std::vector<AttemptFile> files;             // job.sh, env, credentials/ingest_token
  std::vector<AttemptLog> logs;
  std::string group;  // TUNEPLANE_STORAGE_GROUP: every directory and file gets it; empty = owner only

  bool operator==(const AttemptLayout&) const = default;
};

}  // namespace tpslurm::model
