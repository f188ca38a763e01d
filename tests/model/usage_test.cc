// The usage document: GPU-hours and CPU-hours summed over components, its JSON read back, the
// words status shows, and "no usage" said, never zeros.
#include "model/usage.h"

#include <gtest/gtest.h>

namespace tpslurm::model {
namespace {

AttemptUsage two_components() {
  AttemptUsage usage;
  usage.components.push_back({0, "gpu", "h100-80g", Allocation{7380, 64, 524288, 1, 8}});
  usage.components.push_back({1, "gpu", "a100-40g", Allocation{3600, 8, 32768, 1, 2}});
  return usage;
}

TEST(AttemptUsageTest, GpuAndCpuHoursAreSummedOverComponents) {
  const AttemptUsage usage = two_components();
  EXPECT_DOUBLE_EQ(usage.gpu_hours(), 8 * 7380 / 3600.0 + 2.0);
  EXPECT_DOUBLE_EQ(usage.cpu_hours(), 64 * 7380 / 3600.0 + 8.0);
}

TEST(AttemptUsageTest, TheJsonReadsBackAndSaysWhatStatusShows) {
  const AttemptUsage usage = two_components();
  const auto back = parse_usage(usage_json(usage));
  ASSERT_TRUE(back);
  ASSERT_EQ(back->components.size(), 2u);
  EXPECT_EQ(back->components[1].gpu_series, "a100-40g");
  EXPECT_EQ(back->components[0].allocation, usage.components[0].allocation);
  EXPECT_EQ(usage_words(*back), "ran 2h3m: 18.40 GPU-hours (10 GPUs), 139.20 CPU-hours (72 CPUs), 544.00 GB of memory");
}

TEST(AttemptUsageTest, NoUsageIsSaidNeverZeros) {
  AttemptUsage off;
  off.none = std::string(kAccountingOff);
  EXPECT_EQ(usage_json(off), R"({"none":"accounting is off"})");
  EXPECT_EQ(usage_words(*parse_usage(usage_json(off))), "no usage: accounting is off");
  EXPECT_FALSE(parse_usage(""));
  EXPECT_FALSE(parse_usage("[1"));
}

}  // namespace
}  // namespace tpslurm::model
