// The id table of docs/architecture.md §4, one server generation at a time.
#include "slurm/server_info.h"

#include <gtest/gtest.h>

namespace tpslurm::slurm {
namespace {

TEST(SlurmReleaseTest, ParsesReleasesAsMetaReportsThem) {
  EXPECT_EQ(SlurmRelease::parse("26.05.3"), (SlurmRelease{26, 5, 3}));
  EXPECT_EQ(SlurmRelease::parse("22.05.8"), (SlurmRelease{22, 5, 8}));
  EXPECT_EQ(SlurmRelease::parse("26.11.0-0rc1"), (SlurmRelease{26, 11, 0}));
  EXPECT_FALSE(SlurmRelease::parse(""));
  EXPECT_FALSE(SlurmRelease::parse("latest"));
  EXPECT_EQ(SlurmRelease::parse("25.11.7")->to_string(), "25.11.7");
}

TEST(IdPolicyTest, Slurm2605WithV0045UsesSluidsForRefreshAndCancel) {
  const IdPolicy policy = id_policy({26, 5, 3}, "v0.0.45");
  EXPECT_TRUE(policy.records_have_sluid);
  EXPECT_TRUE(policy.sluid_in_paths);
  EXPECT_EQ(policy.refresh, RefreshBy::sluid);
  EXPECT_EQ(policy.cancel, CancelBy::leader_sluid);
  EXPECT_FALSE(policy.degraded());
}

TEST(IdPolicyTest, Slurm2511ChecksSluidsButUsesJobIds) {
  const IdPolicy policy = id_policy({25, 11, 7}, "v0.0.44");
  EXPECT_TRUE(policy.records_have_sluid);
  EXPECT_FALSE(policy.sluid_in_paths);
  EXPECT_EQ(policy.refresh, RefreshBy::job_id_check_sluid);
  EXPECT_EQ(policy.cancel, CancelBy::job_id_after_sluid_check);
  EXPECT_TRUE(policy.degraded());
}

TEST(IdPolicyTest, Slurm2505AndV0043OnNewServersFallBackToTags) {
  for (const IdPolicy& policy : {id_policy({25, 5, 0}, "v0.0.43"), id_policy({26, 5, 3}, "v0.0.43")}) {
    EXPECT_FALSE(policy.records_have_sluid);
    EXPECT_EQ(policy.refresh, RefreshBy::job_id_check_tag);
    EXPECT_EQ(policy.cancel, CancelBy::job_id_after_tag_check);
  }
}

TEST(IdPolicyTest, Slurm2205PollsWithUpdateTimeAndTags) {
  const IdPolicy policy = id_policy({22, 5, 8}, "v0.0.38");
  EXPECT_EQ(policy.cancel, CancelBy::job_id_after_tag_check);
  EXPECT_EQ(policy.describe(),
            "degraded: identity is job id + tag (no SLUID in this server's or REST version's job records)");
}

// The rules that follow the release (server_info.h's table), each at the first release it
// changes on and the one before.
TEST(ReleaseRulesTest, JobsStateIsBoundFrom23_11_5) {
  EXPECT_FALSE(release_rules({23, 11, 4}).jobs_state);
  EXPECT_TRUE(release_rules({23, 11, 5}).jobs_state);
  EXPECT_TRUE(release_rules({24, 5, 8}).jobs_state);
}

TEST(ReleaseRulesTest, DeleteAnswersAStatusListFrom24_11) {
  EXPECT_FALSE(release_rules({23, 11, 11}).cancel_status_list);
  EXPECT_FALSE(release_rules({24, 5, 8}).cancel_status_list);
  EXPECT_TRUE(release_rules({24, 11, 0}).cancel_status_list);
  EXPECT_TRUE(release_rules({26, 5, 3}).cancel_status_list);
}

TEST(ReleaseRulesTest, OnlyEarly23_11NeedsATopLevelScript) {
  EXPECT_TRUE(release_rules({23, 11, 0}).submit_top_level_script);
  EXPECT_TRUE(release_rules({23, 11, 4}).submit_top_level_script);
  EXPECT_FALSE(release_rules({23, 11, 5}).submit_top_level_script);
  EXPECT_FALSE(release_rules({22, 5, 8}).submit_top_level_script) << "22.05's v0.0.38 has its own rules";
  EXPECT_FALSE(release_rules({26, 5, 3}).submit_top_level_script);
}

TEST(ReleaseRulesTest, AVersionWithoutANamedReleaseGetsTheOldestServingRelease) {
  EXPECT_EQ(oldest_release_serving("v0.0.40"), (SlurmRelease{23, 11, 0}));
  EXPECT_EQ(oldest_release_serving("v0.0.41"), (SlurmRelease{24, 5, 0}));
  EXPECT_EQ(oldest_release_serving("v0.0.42"), (SlurmRelease{24, 11, 0}));
  EXPECT_EQ(oldest_release_serving("v0.0.43"), (SlurmRelease{25, 5, 0}));
  EXPECT_EQ(oldest_release_serving("v0.0.45"), (SlurmRelease{26, 5, 0}));
  const ReleaseRules careful = release_rules(oldest_release_serving("v0.0.40"));
  EXPECT_FALSE(careful.jobs_state);
  EXPECT_FALSE(careful.cancel_status_list);
  EXPECT_TRUE(careful.submit_top_level_script);
}

}  // namespace
}  // namespace tpslurm::slurm
