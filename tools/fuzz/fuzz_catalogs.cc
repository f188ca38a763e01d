#include "fuzz_catalogs.h"

#include "fuzz_support.h"

namespace tpslurm::fuzz {
namespace {

const char* const kGpuSeriesJson = R"({ "series": {
  "h100-80g": { "slurm_constraint": "h100", "gres": "gpu", "gpus_per_node": 8 },
  "a100-80g": { "slurm_constraint": "a100&80g", "gres": "gpu:a100", "gpus_per_node": 8 },
  "l40s":     { "gres": "gpu", "gpus_per_node": 4 } } })";

const char* const kRuntimeRegistryJson = R"({ "runtimes": {
  "custom-pytorch-2.5": { "framework": "custom", "launcher": "srun",
    "sqsh": { "path": "runtimes/pytorch-2.5.sqsh", "sha256": "1111111111111111111111111111111111111111111111111111111111111111" },
    "sif":  { "path": "runtimes/pytorch-2.5.sif",  "sha256": "2222222222222222222222222222222222222222222222222222222222222222" } },
  "custom-ray-2.40": { "framework": "custom", "launcher": "ray",
    "sqsh": { "path": "runtimes/ray-2.40.sqsh", "sha256": "4444444444444444444444444444444444444444444444444444444444444444" },
    "sif":  { "path": "runtimes/ray-2.40.sif",  "sha256": "5555555555555555555555555555555555555555555555555555555555555555" } },
  "verl-0.4": { "framework": "verl", "launcher": "ray",
    "sqsh": { "path": "runtimes/verl-0.4.sqsh", "sha256": "3333333333333333333333333333333333333333333333333333333333333333" } } } })";

}  // namespace

const model::GpuSeriesCatalog& gpu_series() {
  static const model::GpuSeriesCatalog catalog = [] {
    auto parsed = model::GpuSeriesCatalog::parse(kGpuSeriesJson, "gpu-series.json");
    if (!parsed.ok()) fail("the GPU series catalog of fuzz_catalogs.cc does not parse");
    return *parsed;
  }();
  return catalog;
}

const model::RuntimeRegistry& runtimes() {
  static const model::RuntimeRegistry registry = [] {
    auto parsed = model::RuntimeRegistry::parse(kRuntimeRegistryJson, "runtime-registry.json");
    if (!parsed.ok()) fail("the runtime registry of fuzz_catalogs.cc does not parse");
    return *parsed;
  }();
  return registry;
}

model::Settings render_settings(model::RuntimeProfile profile) {
  model::Settings settings;
  settings.instance = "prod";
  settings.partition = "gpu";
  settings.cpu_partition = "cpu";
  settings.runtime_profile = profile;
  settings.storage_root = "/srv/tuneplane";
  return settings;
}

}  // namespace tpslurm::fuzz
