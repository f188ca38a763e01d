// AttemptLayout: everything one attempt directory holds, as rendering decides it and storage
// writes it (and the reconciler later reads back): its identity, the image it runs, the
// directories and files to create, and the scheduler log files its job will write.
//
//   <storage root>/slurm/jobs/<job_id>/attempts/<n>/
//     job.sh, env, credentials/ingest_token, logs/, scratch/, manifest.json (written last)
//
// Pure values; paths inside the attempt are relative to its directory.
#pragma once

#include <string>
#include <vector>

namespace tpslurm::model {

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
  std::string name;    // "batch", "component-0", "program", ...
  int component = -1;  // the heterogeneous component whose nodes write it; -1 = the job
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

  bool operator==(const AttemptLayout&) const = default;
};

}  // namespace tpslurm::model
