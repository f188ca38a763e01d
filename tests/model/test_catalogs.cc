#include "test_catalogs.h"

#include <cstdlib>

namespace tpslurm::model::testing {

const char* const kGpuSeriesJson = R"({ "series": {
  "h100-80g": { "slurm_constraint": "h100", "gres": "gpu", "gpus_per_node": 8 },
  "a100-80g": { "slurm_constraint": "a100&80g", "gres": "gpu", "gpus_per_node": 8 },
  "l40s":     { "gres": "gpu", "gpus_per_node": 4 } } })";

const char* const kRuntimeRegistryJson = R"({ "runtimes": {
  "custom-pytorch-2.5": { "framework": "custom", "launcher": "srun",
    "sqsh": { "path": "runtimes/pytorch-2.5.sqsh", "sha256": "1111111111111111111111111111111111111111111111111111111111111111" },
    "sif":  { "path": "runtimes/pytorch-2.5.sif",  "sha256": "2222222222222222222222222222222222222222222222222222222222222222" } },
  "verl-0.4": { "framework": "verl", "launcher": "ray",
    "sqsh": { "path": "runtimes/verl-0.4.sqsh", "sha256": "3333333333333333333333333333333333333333333333333333333333333333" } } } })";

const char* const kValidRequestJson = R"({
  "job_id": "ft-7f3c2a",
  "type": "custom",
  "spec": {
    "framework": { "name": "custom", "runtime_id": "custom-pytorch-2.5" },
    "command": ["python", "train.py", "--lr", "3e-4"],
    "working_dir": "/workspace",
    "env": { "WANDB_MODE": "offline" },
    "pools": [
      { "name": "trainer", "gpu_series": "h100-80g", "nodes": 2, "gpus_per_node": 8, "cpus": 96, "memory_gb": 900 },
      { "name": "rollout", "gpu_series": "a100-80g", "nodes": 1, "gpus_per_node": 8, "cpus": 64, "memory_gb": 500 }
    ],
    "mounts": [ { "source": "datasets/imagenet", "target": "/data", "read_only": true } ],
    "time_limit_minutes": 1440,
    "partition": "gpu",
    "retry": { "max_attempts": 3 },
    "slurm": { "account": "ml-team", "qos": "normal" },
    "checkpoint_grace_seconds": 120
  },
  "credentials": { "ingest_token": "tok-secret" }
})";

const GpuSeriesCatalog& gpu_series() {
  static const GpuSeriesCatalog catalog = [] {
    auto parsed = GpuSeriesCatalog::parse(kGpuSeriesJson, "gpu-series.json");
    if (!parsed.ok()) std::abort();
    return *parsed;
  }();
  return catalog;
}

const RuntimeRegistry& runtimes() {
  static const RuntimeRegistry registry = [] {
    auto parsed = RuntimeRegistry::parse(kRuntimeRegistryJson, "runtime-registry.json");
    if (!parsed.ok()) std::abort();
    return *parsed;
  }();
  return registry;
}

ValidationContext context(RuntimeProfile profile) { return {gpu_series(), runtimes(), profile}; }

boost::json::value valid_request() { return boost::json::parse(kValidRequestJson); }

boost::json::value cpu_only_request() {
  boost::json::value request = valid_request();
  auto& spec = request.at("spec").as_object();
  spec["pools"] = boost::json::parse(R"([{ "name": "main", "nodes": 1, "gpus_per_node": 0, "cpus": 4, "memory_gb": 8 }])");
  spec.erase("checkpoint_grace_seconds");
  return request;
}

Result<LaunchRequest, Problems> parse(const boost::json::value& request, RuntimeProfile profile) {
  return parse_launch_request(boost::json::serialize(request), context(profile));
}

std::string refusal(const boost::json::value& request, RuntimeProfile profile) {
  const auto result = parse(request, profile);
  if (result.ok()) return "";
  return result.error().to_text();
}

}  // namespace tpslurm::model::testing
