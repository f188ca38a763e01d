#include <gtest/gtest.h>

#include "model/gpu_series.h"
#include "model/runtime_registry.h"
#include "test_catalogs.h"

namespace tpslurm::model {
namespace {

TEST(GpuSeriesCatalogTest, ReadsTheDocumentedExample) {
  const auto& catalog = testing::gpu_series();
  ASSERT_NE(catalog.find("a100-80g"), nullptr);
  EXPECT_EQ(catalog.find("a100-80g")->slurm_constraint, "a100&80g");
  EXPECT_EQ(catalog.find("a100-80g")->gpus_per_node, 8);
  EXPECT_FALSE(catalog.find("l40s")->slurm_constraint.has_value());
  EXPECT_EQ(catalog.find("h200"), nullptr);
}

std::string catalog_refusal(std::string_view json) {
  const auto result = GpuSeriesCatalog::parse(json, "/etc/tp/gpu.json");
  return result.ok() ? "" : result.error().to_text();
}

TEST(GpuSeriesCatalogTest, ReportsEveryProblemWithTheFileName) {
  EXPECT_EQ(catalog_refusal(R"({"series": {"x": {"slurm_constraint": "h100 ; rm", "gpus_per_node": 0, "gres": ":"},
                                            "y": 5}, "extra": 1})"),
            "/etc/tp/gpu.json.series.x.slurm_constraint \"h100 ; rm\": is not a Slurm feature expression (names "
            "joined by & | ,)\n"
            "/etc/tp/gpu.json.series.x.gres \":\": must be a GRES name such as \"gpu\" or \"gpu:h100\"\n"
            "/etc/tp/gpu.json.series.x.gpus_per_node 0: must be a whole number from 1 to 64\n"
            "/etc/tp/gpu.json.series.y 5: must be an object\n"
            "/etc/tp/gpu.json.extra: unknown field; remove it or fix its spelling (known here: series)\n");
  EXPECT_EQ(catalog_refusal("[]"), "/etc/tp/gpu.json: must be a JSON object with a \"series\" object\n");
  EXPECT_EQ(catalog_refusal("{"), "/etc/tp/gpu.json is not acceptable JSON at byte 1: incomplete JSON\n");
}

TEST(RuntimeRegistryTest, ReadsTheDocumentedExample) {
  const auto& registry = testing::runtimes();
  const Runtime* custom = registry.find("custom-pytorch-2.5");
  ASSERT_NE(custom, nullptr);
  EXPECT_EQ(custom->launcher, Launcher::srun);
  EXPECT_EQ(custom->artifact_for(RuntimeProfile::enroot_pyxis)->path, "runtimes/pytorch-2.5.sqsh");
  EXPECT_EQ(custom->artifact_for(RuntimeProfile::apptainer)->path, "runtimes/pytorch-2.5.sif");
  const Runtime* verl = registry.find("verl-0.4");
  EXPECT_EQ(verl->launcher, Launcher::ray);
  EXPECT_FALSE(verl->artifact_for(RuntimeProfile::apptainer).has_value());
}

TEST(RuntimeRegistryTest, ReportsEveryProblem) {
  const auto result = RuntimeRegistry::parse(R"({"runtimes": {
      "pytorch": {"framework": "custom", "launcher": "mpirun",
                  "sqsh": {"path": "/abs/x.sqsh", "sha256": "XYZ"}},
      "custom-empty": {"framework": "custom", "launcher": "srun"},
      "custom-escape": {"framework": "custom", "launcher": "srun", "sif": {"path": "a/../../b.sif",
                        "sha256": "0000000000000000000000000000000000000000000000000000000000000000", "size": 1}}}})",
                                             "reg.json");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().to_text(),
            "reg.json.runtimes.pytorch: a runtime of framework \"custom\" must be named custom-…; rename it to "
            "\"custom-pytorch\"\n"
            "reg.json.runtimes.pytorch.launcher \"mpirun\": must be \"srun\" or \"ray\"\n"
            "reg.json.runtimes.pytorch.sqsh.path \"/abs/x.sqsh\": absolute host paths are not allowed; give a path "
            "relative to the storage root (TUNEPLANE_STORAGE_ROOT)\n"
            "reg.json.runtimes.pytorch.sqsh.sha256 \"XYZ\": must be 64 lower-case hex digits\n"
            "reg.json.runtimes.custom-empty: needs a \"sqsh\" (Enroot/Pyxis) or \"sif\" (Apptainer) artifact\n"
            "reg.json.runtimes.custom-escape.sif.path \"a/../../b.sif\": must stay inside the storage root; remove "
            "the \"..\" components\n"
            "reg.json.runtimes.custom-escape.sif.size: unknown field; remove it or fix its spelling (known here: "
            "path, sha256)\n");
}

TEST(RuntimeProfileTest, NamesRoundTrip) {
  EXPECT_EQ(parse_runtime_profile("enroot-pyxis"), RuntimeProfile::enroot_pyxis);
  EXPECT_EQ(parse_runtime_profile("apptainer"), RuntimeProfile::apptainer);
  EXPECT_EQ(parse_runtime_profile("singularity"), std::nullopt);
  EXPECT_EQ(to_string(RuntimeProfile::enroot_pyxis), "enroot-pyxis");
}

}  // namespace
}  // namespace tpslurm::model
