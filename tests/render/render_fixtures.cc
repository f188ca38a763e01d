#include "render_fixtures.h"

#include <cstdlib>

#include "storage/layout.h"

namespace tpslurm::render::testing {

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

const model::GpuSeriesCatalog& gpu_series() {
  static const model::GpuSeriesCatalog catalog = [] {
    auto parsed = model::GpuSeriesCatalog::parse(kGpuSeriesJson, "gpu-series.json");
    if (!parsed.ok()) std::abort();
    return *parsed;
  }();
  return catalog;
}

const model::RuntimeRegistry& runtimes() {
  static const model::RuntimeRegistry registry = [] {
    auto parsed = model::RuntimeRegistry::parse(kRuntimeRegistryJson, "runtime-registry.json");
    if (!parsed.ok()) std::abort();
    return *parsed;
  }();
  return registry;
}

RenderCatalogs catalogs() { return {gpu_series(), runtimes()}; }

model::Settings settings(model::RuntimeProfile profile) {
  model::Settings settings;
  settings.instance = "prod";
  settings.partition = "gpu";
  settings.cpu_partition = "cpu";
  settings.runtime_profile = profile;
  settings.storage_root = kStorageRoot;
  return settings;
}

AttemptInputs inputs(const model::Settings& settings, const std::string& job_id, int attempt) {
  AttemptInputs in;
  in.attempt = attempt;
  in.submit_token = kSubmitToken;
  in.local_attempt_dir = storage::attempt_dir(settings.storage_root, job_id, attempt);
  in.cluster_attempt_dir =
      storage::to_cluster_path(in.local_attempt_dir, settings.storage_root, settings.slurm_storage_root);
  in.job_credential_path = storage::job_credential_path(settings.storage_root, job_id);
  return in;
}

namespace {

model::LaunchRequest base_request(std::string job_id, std::string runtime_id) {
  model::LaunchRequest request;
  request.job_id = std::move(job_id);
  request.type = "custom";
  request.framework = "custom";
  request.runtime_id = std::move(runtime_id);
  request.command = {"torchrun", "--nnodes=2", "train.py", "--lr", "3e-4"};
  request.working_dir = "/workspace";
  request.env = {{"WANDB_MODE", "offline"}};
  request.mounts = {{"datasets/imagenet", "/data", true}, {"checkpoints/ft-7f3c2a", "/ckpt", false}};
  request.time_limit_minutes = 1440;
  request.ingest_token = "tok-secret";
  return request;
}

model::Pool gpu_pool(std::string name, std::string series, int nodes, int cpus, int memory_gb) {
  return {std::move(name), std::move(series), nodes, 8, cpus, std::int64_t{memory_gb} * 1024};
}

}  // namespace

model::LaunchRequest one_gpu_pool(model::Launcher launcher) {
  model::LaunchRequest request =
      base_request(launcher == model::Launcher::ray ? "ray-one-pool" : "srun-one-pool",
                   launcher == model::Launcher::ray ? "custom-ray-2.40" : "custom-pytorch-2.5");
  request.pools = {gpu_pool("trainer", "h100-80g", 2, 96, 900)};
  if (launcher == model::Launcher::ray) request.command = {"python", "train_ray.py", "--workers", "16"};
  return request;
}

model::LaunchRequest two_pool_hetjob() {
  model::LaunchRequest request = base_request("hetjob-two", "verl-0.4");
  request.type = "training";
  request.framework = "verl";
  request.command = {"python", "-m", "verl.trainer.main_ppo", "trainer.nnodes=3"};
  request.pools = {gpu_pool("trainer", "h100-80g", 2, 96, 900), gpu_pool("rollout", "a100-80g", 1, 64, 500)};
  return request;
}

model::LaunchRequest three_pool_hetjob() {
  model::LaunchRequest request = base_request("hetjob-three", "custom-pytorch-2.5");
  request.pools = {gpu_pool("actor", "h100-80g", 2, 96, 900), gpu_pool("critic", "a100-80g", 1, 64, 500),
                   gpu_pool("reward", "h100-80g", 1, 32, 200)};
  return request;
}

model::LaunchRequest cpu_only() {
  model::LaunchRequest request = base_request("cpu-only", "custom-pytorch-2.5");
  request.command = {"python", "preprocess.py", "--shards", "64"};
  request.pools = {{"main", "", 1, 0, 4, 8 * 1024}};
  request.mounts = {{"datasets/raw", "/data", true}};
  return request;
}

model::LaunchRequest with_checkpoint_grace() {
  model::LaunchRequest request = base_request("grace", "custom-pytorch-2.5");
  request.pools = {gpu_pool("trainer", "a100-80g", 1, 64, 500)};
  request.checkpoint_grace_seconds = 120;
  request.partition = "gpu-long";
  request.slurm.account = "ml-team";
  request.slurm.qos = "normal";
  request.slurm.reservation = "maint-window";
  request.slurm.wckey = "ft";
  request.slurm.exclusive = true;
  return request;
}

std::string example_request_json() {
  return R"({
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
}

Result<RenderedAttempt, model::Problems> render(const model::LaunchRequest& request, const model::Settings& settings,
                                                RenderTrace* trace) {
  const model::Runtime* runtime = runtimes().find(request.runtime_id);
  if (runtime == nullptr) std::abort();
  return render_attempt(request, *runtime, gpu_series(), settings, inputs(settings, request.job_id),
                        TemplateSet::builtin(), trace);
}

}  // namespace tpslurm::render::testing
