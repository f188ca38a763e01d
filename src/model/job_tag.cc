#include "model/job_tag.h"

namespace tpslurm::model {

std::string job_name(std::string_view instance, std::string_view job_id, int attempt) {
  std::string name = "tp-";
  name += instance;
  name += '-';
  name += job_id;
  name += '-';
  name += std::to_string(attempt);
  return name;
}

std::string tag_comment(std::string_view submit_token) { return "tuneplane:" + std::string(submit_token); }

JobTag JobTag::make(std::string_view instance, std::string_view job_id, int attempt, std::string_view submit_token,
                    std::string_view attempt_dir) {
  return {job_name(instance, job_id, attempt), tag_comment(submit_token), std::string(attempt_dir)};
}

int JobTag::matches(const JobTag& candidate) const {
  // An empty mark never matches: a job with no comment is not "ours" by an empty comment.
  const auto same = [](const std::string& a, const std::string& b) { return !a.empty() && a == b; };
  return int{same(name, candidate.name)} + int{same(comment, candidate.comment)} +
         int{same(working_directory, candidate.working_directory)};
}

}  // namespace tpslurm::model
