// JobTag: how a Slurm job is recognised as one attempt of ours.
//
// Slurm has no idempotency key, so every component of a submitted job carries three marks:
// the job name `tp-<instance>-<job_id>-<attempt>`, a comment holding the attempt's submit
// token (`tuneplane:<uuid>`), and the attempt directory as working directory. Users can edit
// the name and comment of their own jobs, so a job found by search is ours only when at
// least two of the three match exactly.
#pragma once

#include <string>
#include <string_view>

namespace tpslurm::model {

struct JobTag {
  std::string name;
  std::string comment;
  std::string working_directory;

  static JobTag make(std::string_view instance, std::string_view job_id, int attempt, std::string_view submit_token,
                     std::string_view attempt_dir);

  // How many of the three marks `candidate` shares with this tag (0..3).
  int matches(const JobTag& candidate) const;
  // At least two of three.
  bool identifies(const JobTag& candidate) const { return matches(candidate) >= 2; }

  bool operator==(const JobTag&) const = default;
};

std::string job_name(std::string_view instance, std::string_view job_id, int attempt);
std::string tag_comment(std::string_view submit_token);

}  // namespace tpslurm::model
