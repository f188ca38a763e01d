#include "model/job_tag.h"

#include <gtest/gtest.h>

namespace tpslurm::model {
namespace {

TEST(JobTagTest, BuildsTheThreeMarks) {
  const JobTag tag = JobTag::make("c1", "ft-7f3c2a", 2, "0b6f8c1e-4d2a-4c1f-9a7e-3f1d2c4b5a69", "/s/jobs/a/2");
  EXPECT_EQ(tag.name, "tp-c1-ft-7f3c2a-2");
  EXPECT_EQ(tag.comment, "tuneplane:0b6f8c1e-4d2a-4c1f-9a7e-3f1d2c4b5a69");
  EXPECT_EQ(tag.working_directory, "/s/jobs/a/2");
}

TEST(JobTagTest, TwoOfThreeIdentify) {
  const JobTag ours{"tp-c1-j-1", "tuneplane:t", "/d"};
  EXPECT_TRUE(ours.identifies({"tp-c1-j-1", "tuneplane:t", "/d"}));
  EXPECT_TRUE(ours.identifies({"renamed-by-user", "tuneplane:t", "/d"}));
  EXPECT_TRUE(ours.identifies({"tp-c1-j-1", "edited comment", "/d"}));
  EXPECT_FALSE(ours.identifies({"tp-c1-j-1", "edited", "/elsewhere"}));
  EXPECT_EQ(ours.matches({"x", "y", "z"}), 0);
}

TEST(JobTagTest, EmptyMarksNeverMatch) {
  const JobTag ours{"tp-c1-j-1", "", ""};
  EXPECT_EQ(ours.matches({"tp-c1-j-1", "", ""}), 1);
  EXPECT_FALSE(ours.identifies({"tp-c1-j-1", "", ""}));
}

}  // namespace
}  // namespace tpslurm::model
