// The steps of docs/deploy.md, the deployment guide, as the code names them.
//
// doctor's fixes point into the guide ("docs/deploy.md, step 3: The service user and its
// token"); the guide's headings are exactly `## Step N: <title>` for each entry here, in this
// order, and a test (tests/model/deploy_guide_test.cc) holds the file to this table. Values
// only; no state.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace tpslurm::model {

enum class DeployStep {
  jwt_authentication = 1,
  slurmrestd,
  service_user,
  container_runtime,
  gpu_series,
  min_job_age,
  install_package,
  configure_daemon,
  storage_root,
  doctor,
  first_job,
  api_token,
};

struct DeployStepTitle {
  DeployStep step;
  std::string_view title;
};

inline constexpr std::array<DeployStepTitle, 12> kDeploySteps{{
    {DeployStep::jwt_authentication, "JWT authentication in Slurm"},
    {DeployStep::slurmrestd, "slurmrestd"},
    {DeployStep::service_user, "The service user and its token"},
    {DeployStep::container_runtime, "The container runtime on the nodes"},
    {DeployStep::gpu_series, "GPU series: GRES and node features"},
    {DeployStep::min_job_age, "MinJobAge and accounting"},
    {DeployStep::install_package, "Install the package"},
    {DeployStep::configure_daemon, "Configure the daemon"},
    {DeployStep::storage_root, "The storage root"},
    {DeployStep::doctor, "Check with doctor"},
    {DeployStep::first_job, "Start the service and submit a first job"},
    {DeployStep::api_token, "The platform's API token"},
}};

inline constexpr int deploy_step_number(DeployStep step) { return static_cast<int>(step); }

inline constexpr std::string_view deploy_step_title(DeployStep step) {
  return kDeploySteps[static_cast<std::size_t>(deploy_step_number(step) - 1)].title;
}

// "docs/deploy.md, step 3: The service user and its token".
inline std::string deploy_step_reference(DeployStep step) {
  return "docs/deploy.md, step " + std::to_string(deploy_step_number(step)) + ": " +
         std::string(deploy_step_title(step));
}

// `fix` followed by " (docs/deploy.md, step N: <title>)".
inline std::string fix_with_step(std::string fix, DeployStep step) {
  return fix + " (" + deploy_step_reference(step) + ")";
}

}  // namespace tpslurm::model
