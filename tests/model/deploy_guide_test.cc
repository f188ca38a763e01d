// docs/deploy.md held to the steps the code names (model/deploy_guide.h): every step doctor's
// fixes can point to is a `## Step N: <title>` heading of the guide, and the guide has no
// other step heading, in the same order.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "model/deploy_guide.h"
#include "support/temp_dir.h"

namespace tpslurm::model {
namespace {

std::vector<std::string> step_headings(const std::string& text) {
  std::vector<std::string> headings;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("## Step ", 0) == 0) headings.push_back(line);
  }
  return headings;
}

TEST(DeployGuideTest, EveryStepTheCodeNamesIsAHeadingOfTheGuideInOrder) {
  const std::string guide = tpslurm::testing::read_test_file(std::string(TP_SOURCE_DIR) + "/docs/deploy.md");
  std::vector<std::string> named;
  for (const auto& entry : kDeploySteps) {
    named.push_back("## Step " + std::to_string(deploy_step_number(entry.step)) + ": " + std::string(entry.title));
  }
  const std::vector<std::string> found = step_headings(guide);
  for (const auto& heading : named) {
    EXPECT_NE(guide.find("\n" + heading + "\n"), std::string::npos) << heading << " is not a heading of docs/deploy.md";
  }
  EXPECT_EQ(found, named) << "docs/deploy.md's step headings, in order, are the code's";
}

TEST(DeployGuideTest, StepsAreNumberedOneToTwelveInOrder) {
  for (std::size_t i = 0; i < kDeploySteps.size(); ++i) {
    EXPECT_EQ(deploy_step_number(kDeploySteps[i].step), static_cast<int>(i + 1));
  }
  EXPECT_EQ(deploy_step_reference(DeployStep::service_user), "docs/deploy.md, step 3: The service user and its token");
  EXPECT_EQ(fix_with_step("write a fresh token", DeployStep::service_user),
            "write a fresh token (docs/deploy.md, step 3: The service user and its token)");
}

}  // namespace
}  // namespace tpslurm::model
