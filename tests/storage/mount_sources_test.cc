#include "storage/mount_sources.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "support/temp_dir.h"

namespace tpslurm::storage {
namespace {

using testing::TempDir;
using testing::write_test_file;
namespace fs = std::filesystem;

const std::vector<std::string> kImages = {"runtimes/img.sqsh"};

class MountSourcesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write_test_file(m_root.file("data/set/a"), "a");
    write_test_file(m_root.file("runtimes/img.sqsh"), "image");
    write_test_file(m_root.file("slurm/jobs/other/credentials/ingest_token"), "secret");
    fs::create_directories(m_outside.file("elsewhere"));
  }

  std::string link(const std::string& name, const std::string& target) {
    fs::create_directories(fs::path(m_root.file(name)).parent_path());
    fs::create_symlink(target, m_root.file(name));
    return name;
  }

  std::string problems(const std::vector<model::Mount>& mounts) {
    auto resolved = resolve_mount_sources(m_root.path(), mounts, kImages);
    return resolved.ok() ? "(resolved)" : resolved.error().to_text();
  }

  TempDir m_root;
  TempDir m_outside;
};

TEST_F(MountSourcesTest, PlainSourcesStayAsTheyAre) {
  auto resolved =
      resolve_mount_sources(m_root.path(), {{"data/set", "/data", true}, {"runtimes", "/r", true}}, kImages);
  ASSERT_TRUE(resolved.ok()) << resolved.error().to_text();
  EXPECT_EQ((*resolved)[0].source, "data/set");
  EXPECT_EQ((*resolved)[0].target, "/data");
  EXPECT_TRUE((*resolved)[0].read_only);
  EXPECT_EQ((*resolved)[1].source, "runtimes");
}

TEST_F(MountSourcesTest, ALinkInsideTheRootBindsWhereItLeads) {
  link("links/data", "../data/set");
  auto resolved = resolve_mount_sources(m_root.path(), {{"links/data", "/data", false}}, kImages);
  ASSERT_TRUE(resolved.ok()) << resolved.error().to_text();
  EXPECT_EQ((*resolved)[0].source, "data/set");
}

TEST_F(MountSourcesTest, LinksIntoTheProgramsTreeOutOfTheRootOrOntoAnImageAreRefused) {
  link("innocent", m_root.file("slurm/jobs/other"));
  link("escape", m_outside.file("elsewhere"));
  link("img-link", "runtimes/img.sqsh");
  link("root-link", ".");
  EXPECT_EQ(problems({{"innocent", "/a", true},
                      {"escape", "/b", true},
                      {"img-link", "/c", false},
                      {"root-link", "/d", true},
                      {"missing/dir", "/e", true}}),
            "spec.mounts[0].source \"innocent\": leads to slurm/jobs/other, which reaches slurm/ of the storage "
            "root, the program's own tree (attempt directories, credentials, other jobs); mount a directory outside "
            "it\n"
            "spec.mounts[1].source \"escape\": leads outside the storage root (to " +
                fs::canonical(m_outside.file("elsewhere")).string() +
                "); mount a path inside it\n"
                "spec.mounts[2].source \"img-link\": leads to runtimes/img.sqsh, which holds the runtime image "
                "runtimes/img.sqsh, which a job may mount only read-only; set read_only: true\n"
                "spec.mounts[3].source \"root-link\": leads to the storage root itself, which holds the program's "
                "own tree; mount a directory inside it\n"
                "spec.mounts[4].source \"missing/dir\": does not exist under the storage root; create it before the "
                "job starts\n");
}

TEST_F(MountSourcesTest, AnImageReachedThroughALinkIsStillAnImage) {
  fs::remove(m_root.file("runtimes/img.sqsh"));
  write_test_file(m_root.file("store/real.sqsh"), "image");
  link("runtimes/img.sqsh", "../store/real.sqsh");
  EXPECT_EQ(problems({{"store", "/s", false}}),
            "spec.mounts[0].source \"store\": holds the runtime image store/real.sqsh, which a job may mount only "
            "read-only; set read_only: true\n");
}

// What the attempt binds is the path a link leads to, so that path is held to the runtimes' path
// rule too: a directory whose name the shell on the node would read is never bound.
TEST_F(MountSourcesTest, ALinkToADirectoryNamedOutsideThePathRuleIsRefused) {
  fs::create_directories(m_root.file("$(touch${IFS}x)"));
  link("links/data", "../$(touch${IFS}x)");
  EXPECT_EQ(problems({{"links/data", "/data", true}}),
            "spec.mounts[0].source \"links/data\": leads to $(touch${IFS}x), which may hold only ASCII letters, "
            "digits, '.', '_', '-' and '/' (the container runtimes parse it on the nodes, Enroot in a shell); rename "
            "the path\n");
}

}  // namespace
}  // namespace tpslurm::storage
