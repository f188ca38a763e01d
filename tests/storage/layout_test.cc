#include "storage/layout.h"

#include <gtest/gtest.h>

namespace tpslurm::storage {
namespace {

TEST(LayoutTest, JobAndAttemptDirectories) {
  EXPECT_EQ(job_dir("/lustre/tp", "ft-7f3c2a"), "/lustre/tp/slurm/jobs/ft-7f3c2a");
  EXPECT_EQ(attempt_dir("/lustre/tp/", "ft-7f3c2a", 2), "/lustre/tp/slurm/jobs/ft-7f3c2a/attempts/2");
  EXPECT_EQ(job_credential_path("/lustre/tp", "j1"), "/lustre/tp/slurm/jobs/j1/credentials/ingest_token");
}

TEST(LayoutTest, TranslatesToTheClusterMount) {
  EXPECT_EQ(to_cluster_path("/mnt/tp/slurm/jobs/j1", "/mnt/tp", "/lustre/tp"), "/lustre/tp/slurm/jobs/j1");
  EXPECT_EQ(to_cluster_path("/mnt/tp", "/mnt/tp/", "/lustre/tp"), "/lustre/tp");
  EXPECT_EQ(to_cluster_path("/mnt/tp/x", "/mnt/tp", ""), "/mnt/tp/x");
  // A sibling that merely shares a prefix is not under the root.
  EXPECT_EQ(to_cluster_path("/mnt/tpx/y", "/mnt/tp", "/lustre/tp"), "/mnt/tpx/y");
}

}  // namespace
}  // namespace tpslurm::storage
