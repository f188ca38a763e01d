#include "storage/manifest.h"

#include <gtest/gtest.h>

namespace tpslurm::storage {
namespace {

Manifest sample() {
  Manifest manifest;
  manifest.job_id = "ft-7f3c2a";
  manifest.attempt = 2;
  manifest.submit_token = "0b6f8c1e-4d2a-4c1f-9a7e-3f1d2c4b5a69";
  manifest.image_path = "runtimes/pytorch-2.5.sqsh";
  manifest.image_sha256 = std::string(64, 'a');
  manifest.directories = {{"scratch", 0700}, {"logs", 0750}};
  manifest.files = {{"job.sh", 0440, 10, std::string(64, 'b')}, {"env", 0400, 3, std::string(64, 'c')}};
  manifest.logs = {{"batch", -1, "logs/batch.out", "logs/batch.err"}};
  return manifest;
}

TEST(ManifestTest, IsDeterministicAndSorted) {
  Manifest reordered = sample();
  std::reverse(reordered.files.begin(), reordered.files.end());
  EXPECT_EQ(manifest_json(sample()), manifest_json(reordered));
  EXPECT_EQ(manifest_json(sample()),
            "{\"format\":1,\"job_id\":\"ft-7f3c2a\",\"attempt\":2,\"submit_token\":\"0b6f8c1e-4d2a-4c1f-9a7e-"
            "3f1d2c4b5a69\",\"image\":{\"path\":\"runtimes/pytorch-2.5.sqsh\",\"sha256\":\"" +
                std::string(64, 'a') +
                "\"},\"directories\":[{\"path\":\"logs\",\"mode\":\"0750\"},{\"path\":\"scratch\",\"mode\":\"0700\"}],"
                "\"files\":[{\"path\":\"env\",\"mode\":\"0400\",\"size\":3,\"sha256\":\"" +
                std::string(64, 'c') + "\"},{\"path\":\"job.sh\",\"mode\":\"0440\",\"size\":10,\"sha256\":\"" +
                std::string(64, 'b') +
                "\"}],\"logs\":[{\"name\":\"batch\",\"component\":-1,\"stdout\":\"logs/batch.out\",\"stderr\":\"logs/"
                "batch.err\"}],\"complete\":true}\n");
}

TEST(ManifestTest, ReadsBackWhatItWrote) {
  auto parsed = parse_manifest(manifest_json(sample()), "m.json");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message();
  Manifest expected = sample();
  std::sort(expected.files.begin(), expected.files.end(), [](auto& a, auto& b) { return a.path < b.path; });
  std::sort(expected.directories.begin(), expected.directories.end(), [](auto& a, auto& b) { return a.path < b.path; });
  EXPECT_EQ(*parsed, expected);
}

TEST(ManifestTest, RefusesATruncatedManifest) {
  const std::string text = manifest_json(sample());
  auto parsed = parse_manifest(text.substr(0, text.size() / 2), "a/manifest.json");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().kind(), ErrorKind::corrupt);
  EXPECT_EQ(parsed.error().message().rfind("a/manifest.json is not a complete attempt manifest: ", 0), 0u);
}

TEST(ManifestTest, RefusesAManifestNotMarkedComplete) {
  std::string text = manifest_json(sample());
  text.replace(text.find("\"complete\":true"), 15, "\"complete\":false");
  auto parsed = parse_manifest(text, "m.json");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().message(), "m.json is not a complete attempt manifest: not marked complete");
}

TEST(ManifestTest, RefusesABadMode) {
  std::string text = manifest_json(sample());
  text.replace(text.find("\"0400\""), 6, "\"0490\"");
  auto parsed = parse_manifest(text, "m.json");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().message(),
            "m.json is not a complete attempt manifest: \"mode\" 0490 is not four octal digits");
}

}  // namespace
}  // namespace tpslurm::storage
