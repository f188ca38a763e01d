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
// everything is the owner's alone. In per-user mode each job runs as its own Unix user, who gets
// the same through ACL entries naming it (FileAccess below). Nobody else may read anything,
// least of all a credential.
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
  std::string unix_user;            // per-user mode: the job's Unix user (its files are its); else empty
};

// Who may use an attempt's files besides the daemon's service account, which owns them all:
//   owner_only   - nobody: the jobs run as the service account itself;
//   shared_group - the job user, through TUNEPLANE_STORAGE_GROUP (one-user mode);
//   per_user     - the job's own Unix user alone, through an ACL entry naming it
//                  (storage/user_acl.h); the owning group and others get nothing.
enum class FileAccess { owner_only, shared_group, per_user };

struct AttemptModes {
  unsigned tree = 0700;                // the program's tree above the jobs: <root>/slurm, jobs/
  unsigned job = 0700;                 // a job's directory and its attempts/
  unsigned directory = 0700;           // the attempt, its credentials/
  unsigned file = 0400;                // job.sh, env, command, the credential copy
  unsigned writable_directory = 0700;  // logs/ and scratch/: the job writes there
  unsigned manifest = 0400;            // manifest.json
};

// shared_group: 0750 throughout, files 0440, logs/ and scratch/ 2770 (the set-group-id bit
// keeps what the job writes in the group). per_user: the tree 0711 (any user may pass, none may
// list), a job's directories 0710 and the attempt 0750 with the job's user named in their ACL
// (whose mask the group bits are: --x, r-x), files 0440 (r--), logs/ and scratch/ 0770 (rwx),
// manifest.json the owner's. owner_only: 0700 / 0400.
constexpr AttemptModes attempt_modes(FileAccess access) {
  switch (access) {
    case FileAccess::shared_group:
      return {0750, 0750, 0750, 0440, 02770, 0440};
    case FileAccess::per_user:
      return {0711, 0710, 0750, 0440, 0770, 0400};
    case FileAccess::owner_only:
      break;
  }
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
  std::string group;      // TUNEPLANE_STORAGE_GROUP: every directory and file gets it; empty = none
  std::string unix_user;  // per-user mode: the job's Unix user, whom each ACL names; empty = none

  FileAccess access() const {
    if (!unix_user.empty()) return FileAccess::per_user;
    return group.empty() ? FileAccess::owner_only : FileAccess::shared_group;
  }

  bool operator==(const AttemptLayout&) const = default;
};

}  // namespace tpslurm::model
