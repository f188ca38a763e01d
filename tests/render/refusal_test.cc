// Every refusal docs/launch-request.md lists, exercised through the render pipeline (JSON in, as
// the `render` command receives it) with its exact message — and nothing written for it.
// Then the renderer's own fail-closed checks, for requests that bypass the validator.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>

#include "render/render_request.h"
#include "render_fixtures.h"
#include "support/temp_dir.h"

namespace tpslurm::render {
namespace {

namespace json = boost::json;
using model::Launcher;
using model::RuntimeProfile;

json::value example() { return json::parse(testing::example_request_json()); }
json::object& spec(json::value& request) { return request.at("spec").as_object(); }
json::object& pool(json::value& request, std::size_t i) { return spec(request)["pools"].as_array()[i].as_object(); }

json::value cpu_request() {
  json::value request = example();
  spec(request)["pools"] =
      json::parse(R"([{ "name": "main", "nodes": 1, "gpus_per_node": 0, "cpus": 4, "memory_gb": 8 }])");
  return request;
}

class RefusalTest : public ::testing::Test {
 protected:
  // The problems' text for a request that must be refused; fails the test if it renders.
  std::string refusal(const json::value& request, RuntimeProfile profile = RuntimeProfile::enroot_pyxis) {
    model::Settings settings = testing::settings(profile);
    settings.storage_root = m_root.path();
    const auto rendered =
        render_request(json::serialize(request), testing::catalogs(), settings, testing::inputs(settings, "ft-7f3c2a"));
    EXPECT_TRUE(std::filesystem::is_empty(m_root.path())) << "a refused request wrote files";
    if (rendered.ok()) return "(rendered)";
    return rendered.error().to_text();
  }

  tpslurm::testing::TempDir m_root;
};

TEST_F(RefusalTest, TheDocumentedExampleRenders) {
  EXPECT_EQ(refusal(example()), "(rendered)");
  EXPECT_EQ(refusal(cpu_request()), "(rendered)");
}

TEST_F(RefusalTest, Playground) {
  json::value request = example();
  request.as_object()["type"] = "playground";
  EXPECT_EQ(refusal(request),
            "type \"playground\": Playground is not supported on Slurm: compute nodes have no inbound path from the "
            "console; run it on a fleet that supports Playground\n");
}

TEST_F(RefusalTest, ModelDeployment) {
  json::value request = example();
  request.as_object()["type"] = "deployment";
  EXPECT_EQ(refusal(request),
            "type \"deployment\": Model Deployment is not supported on Slurm: compute nodes have no inbound path to "
            "serve from; deploy it on a fleet that supports deployments\n");
}

TEST_F(RefusalTest, DataVolumes) {
  json::value request = example();
  spec(request)["data"] = json::parse(R"({"volumes": [{"name": "imagenet"}]})");
  EXPECT_EQ(refusal(request),
            "spec.data.volumes: volumes are not supported on Slurm: the platform does not control the bind list of a "
            "SIF or SQSH image, so the mount would be empty; use spec.mounts with paths under the storage root "
            "instead\n");
}

TEST_F(RefusalTest, OciImageWithoutRegistryRuntime) {
  json::value request = example();
  auto& framework = spec(request)["framework"].as_object();
  framework.erase("runtime_id");
  framework["image"] = "nvcr.io/nvidia/pytorch:24.05-py3";
  EXPECT_EQ(refusal(request),
            "spec.framework.image \"nvcr.io/nvidia/pytorch:24.05-py3\": OCI images are not materialised on Slurm; "
            "publish a SQSH/SIF artifact in the runtime registry (TUNEPLANE_RUNTIME_REGISTRY_FILE) and name it in "
            "spec.framework.runtime_id\n");
}

TEST_F(RefusalTest, CustomRuntimeNotNamedCustom) {
  json::value request = example();
  spec(request)["framework"].as_object()["runtime_id"] = "pytorch-2.5";
  EXPECT_EQ(refusal(request),
            "spec.framework.runtime_id \"pytorch-2.5\": a custom job's runtime must be named custom-…; publish the "
            "artifact as \"custom-pytorch-2.5\" in the runtime registry\n");
}

TEST_F(RefusalTest, RuntimeNotInRegistry) {
  json::value request = example();
  spec(request)["framework"].as_object()["runtime_id"] = "custom-missing";
  EXPECT_EQ(refusal(request),
            "spec.framework.runtime_id \"custom-missing\": not in the runtime registry; publish it there "
            "(TUNEPLANE_RUNTIME_REGISTRY_FILE) or use one of: custom-pytorch-2.5, custom-ray-2.40, verl-0.4\n");
}

TEST_F(RefusalTest, RuntimeWithoutTheProfilesArtifact) {
  json::value request = example();
  request.as_object()["type"] = "training";
  spec(request)["framework"] = json::parse(R"({"name": "verl", "runtime_id": "verl-0.4"})");
  EXPECT_EQ(refusal(request, RuntimeProfile::apptainer),
            "spec.framework.runtime_id \"verl-0.4\": has no sif artifact, which the apptainer runtime profile needs; "
            "publish one or set TUNEPLANE_SLURM_RUNTIME_PROFILE=enroot-pyxis\n");
}

TEST_F(RefusalTest, GpuSeriesNotInCatalog) {
  json::value request = example();
  pool(request, 1)["gpu_series"] = "h200";
  EXPECT_EQ(refusal(request),
            "spec.pools[1].gpu_series \"h200\": not in the GPU series catalog; add it there "
            "(TUNEPLANE_GPU_SERIES_FILE) or use one of: a100-80g, h100-80g, l40s\n");
}

TEST_F(RefusalTest, GpuSeriesWithoutSlurmConstraint) {
  json::value request = example();
  pool(request, 1)["gpu_series"] = "l40s";
  pool(request, 1)["gpus_per_node"] = 4;
  EXPECT_EQ(refusal(request),
            "spec.pools[1].gpu_series \"l40s\": no slurm_constraint in the GPU series catalog; add one or pick a "
            "series that has it\n");
}

TEST_F(RefusalTest, ScratchSpace) {
  json::value request = cpu_request();
  pool(request, 0)["scratch_gb"] = 100;
  EXPECT_EQ(refusal(request),
            "spec.pools[0].scratch_gb 100: scratch space is not supported on Slurm; the job's temporary space is its "
            "attempt's scratch/ directory on the shared filesystem\n");
}

TEST_F(RefusalTest, MultiNodeCpuJob) {
  json::value request = cpu_request();
  pool(request, 0)["nodes"] = 2;
  EXPECT_EQ(refusal(request),
            "spec.pools[0].nodes 2: a CPU-only job runs on exactly one node; multi-node CPU jobs are not supported on "
            "Slurm\n");
}

TEST_F(RefusalTest, CpuOnlyJobWithSeveralPools) {
  json::value request = example();
  pool(request, 1).erase("gpu_series");
  pool(request, 1)["gpus_per_node"] = 0;
  EXPECT_EQ(refusal(request),
            "spec.pools: a pool without GPUs makes this a CPU-only job, which has exactly one pool (got 2); remove "
            "the other pools or give every pool GPUs\n");
}

TEST_F(RefusalTest, CpuOnlyJobWithoutCpusOrMemory) {
  json::value request = cpu_request();
  pool(request, 0).erase("cpus");
  pool(request, 0).erase("memory_gb");
  EXPECT_EQ(refusal(request),
            "spec.pools[0].cpus: a CPU-only job needs a positive number of CPUs\n"
            "spec.pools[0].memory_gb: a CPU-only job needs a positive amount of memory\n");
}

TEST_F(RefusalTest, CpuOnlyJobThatIsNotCustom) {
  json::value request = cpu_request();
  request.as_object()["type"] = "training";
  EXPECT_EQ(refusal(request),
            "spec.pools[0].gpus_per_node 0: CPU-only jobs must be type \"custom\" with framework \"custom\"\n");
}

TEST_F(RefusalTest, MountSourcesOutsideTheStorageRoot) {
  json::value request = example();
  spec(request)["mounts"] = json::parse(R"([
    {"source": "../etc", "target": "/a"}, {"source": "/etc", "target": "/b"},
    {"source": "a,b", "target": "/c"}, {"source": "a:b", "target": "/d"}])");
  EXPECT_EQ(refusal(request),
            "spec.mounts[0].source \"../etc\": must stay inside the storage root; remove the \"..\" components\n"
            "spec.mounts[1].source \"/etc\": absolute host paths are not allowed; give a path relative to the storage "
            "root (TUNEPLANE_STORAGE_ROOT)\n"
            "spec.mounts[2].source \"a,b\": may hold only ASCII letters, digits, '.', '_', '-' and '/' (the "
            "container runtimes parse it on the nodes, Enroot in a shell); rename the path\n"
            "spec.mounts[3].source \"a:b\": may hold only ASCII letters, digits, '.', '_', '-' and '/' (the "
            "container runtimes parse it on the nodes, Enroot in a shell); rename the path\n");
}

TEST_F(RefusalTest, MountTargetsTheRuntimesCannotTake) {
  json::value request = example();
  spec(request)["mounts"] = json::parse(R"([
    {"source": "a", "target": "relative"}, {"source": "b", "target": "/x,y"},
    {"source": "c", "target": "/x:y"}, {"source": "d", "target": "/tuneplane/x"}])");
  EXPECT_EQ(refusal(request),
            "spec.mounts[0].target \"relative\": must be an absolute path inside the container\n"
            "spec.mounts[1].target \"/x,y\": may hold only ASCII letters, digits, '.', '_', '-' and '/' (the "
            "container runtimes parse it on the nodes, Enroot in a shell); rename the path\n"
            "spec.mounts[2].target \"/x:y\": may hold only ASCII letters, digits, '.', '_', '-' and '/' (the "
            "container runtimes parse it on the nodes, Enroot in a shell); rename the path\n"
            "spec.mounts[3].target \"/tuneplane/x\": /tuneplane is reserved for the platform's own mounts; pick "
            "another\n");
}

TEST_F(RefusalTest, UnknownFields) {
  json::value request = example();
  spec(request)["partiton"] = "gpu";
  const std::string text = refusal(request);
  EXPECT_EQ(text.substr(0, 15), "spec.partiton: ") << text;
}

TEST_F(RefusalTest, InvalidJobId) {
  json::value request = example();
  request.as_object()["job_id"] = "Bad_Id";
  EXPECT_EQ(refusal(request),
            "job_id \"Bad_Id\": must match [a-z0-9][a-z0-9-]{0,62} (lower-case letters, digits and '-', at most 63)\n");
}

// Each reserved family of docs/launch-request.md, refused by name.
class ReservedEnvTest : public RefusalTest,
                        public ::testing::WithParamInterface<std::pair<const char*, const char*>> {};

TEST_P(ReservedEnvTest, IsRefused) {
  const auto [name, family] = GetParam();
  json::value request = example();
  spec(request)["env"] = json::object{{name, "x"}};
  EXPECT_EQ(refusal(request), "spec.env." + std::string(name) + ": reserved name (" + family +
                                  " belongs to Slurm, the container runtime or the shell); rename the variable\n");
}

INSTANTIATE_TEST_SUITE_P(
    Families, ReservedEnvTest,
    ::testing::Values(std::pair{"SLURM_JOB_ID", "SLURM_*"}, std::pair{"SBATCH_ACCOUNT", "SBATCH_*"},
                      std::pair{"SRUN_CPUS_PER_TASK", "SRUN_*"}, std::pair{"SALLOC_X", "SALLOC_*"},
                      std::pair{"PMI_RANK", "PMI*"}, std::pair{"PMIX_RANK", "PMI*"}, std::pair{"OMPI_X", "OMPI_*"},
                      std::pair{"TUNEPLANE_X", "TUNEPLANE_*"}, std::pair{"ENROOT_X", "ENROOT_*"},
                      std::pair{"PYXIS_X", "PYXIS_*"}, std::pair{"APPTAINER_BIND", "APPTAINER*"},
                      std::pair{"SINGULARITY_BIND", "SINGULARITY*"}, std::pair{"NVIDIA_VISIBLE_DEVICES", "NVIDIA_*"},
                      std::pair{"CUDA_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"}, std::pair{"BASH_ENV", "BASH_ENV"},
                      std::pair{"ENV", "ENV"}, std::pair{"BASH_FUNC_x", "BASH_FUNC_*"}, std::pair{"PATH", "PATH"},
                      std::pair{"HOME", "HOME"}, std::pair{"IFS", "IFS"}),
    [](const ::testing::TestParamInfo<std::pair<const char*, const char*>>& param) {
      return std::string(param.param.first);
    });

// The renderer does not rely on the validator: requests built directly fail closed.
class FailClosedTest : public ::testing::Test {
 protected:
  std::string problems(const model::LaunchRequest& request,
                       const model::Settings& settings = testing::settings(RuntimeProfile::enroot_pyxis)) {
    const auto rendered = testing::render(request, settings);
    return rendered.ok() ? "(rendered)" : rendered.error().to_text();
  }
};

TEST_F(FailClosedTest, GpuSeriesWithoutConstraintIsNotAnEmptyConstraint) {
  model::LaunchRequest request = testing::one_gpu_pool(Launcher::srun);
  request.pools[0].gpu_series = "l40s";
  request.pools[0].gpus_per_node = 4;
  EXPECT_EQ(problems(request),
            "spec.pools[0].gpu_series \"l40s\": no slurm_constraint in the GPU series catalog; "
            "add one or pick a series that has it\n");
}

TEST_F(FailClosedTest, UnknownGpuSeries) {
  model::LaunchRequest request = testing::one_gpu_pool(Launcher::srun);
  request.pools[0].gpu_series = "h200";
  EXPECT_EQ(problems(request),
            "spec.pools[0].gpu_series \"h200\": not in the GPU series catalog; add it there "
            "(TUNEPLANE_GPU_SERIES_FILE)\n");
}

TEST_F(FailClosedTest, MoreGpusThanTheSeriesHas) {
  model::LaunchRequest request = testing::one_gpu_pool(Launcher::srun);
  request.pools[0].gpus_per_node = 16;
  EXPECT_EQ(problems(request),
            "spec.pools[0].gpus_per_node 16: series \"h100-80g\" has 8 GPUs per node; ask for at "
            "most that many\n");
}

TEST_F(FailClosedTest, RuntimeWithoutTheProfilesArtifact) {
  model::LaunchRequest request = testing::two_pool_hetjob();
  EXPECT_EQ(problems(request, testing::settings(RuntimeProfile::apptainer)),
            "spec.framework.runtime_id \"verl-0.4\": has no sif artifact, which the apptainer runtime profile needs; "
            "publish one or set TUNEPLANE_SLURM_RUNTIME_PROFILE=enroot-pyxis\n");
}

TEST_F(FailClosedTest, VariablesTheShellOwns) {
  model::LaunchRequest request = testing::one_gpu_pool(Launcher::srun);
  request.env = {{"BASHOPTS", "x"}, {"SHELLOPTS", "x"}, {"POSIXLY_CORRECT", "1"}, {"UID", "0"}};
  const std::string why =
      ": is a variable the shell itself uses, and the job's environment is loaded by a shell; rename the "
      "variable\n";
  EXPECT_EQ(problems(request), "spec.env.BASHOPTS" + why + "spec.env.SHELLOPTS" + why + "spec.env.POSIXLY_CORRECT" +
                                   why + "spec.env.UID" + why);
}

TEST_F(FailClosedTest, VariablesThePlatformSets) {
  model::LaunchRequest request = testing::one_gpu_pool(Launcher::srun);
  request.env = {{"TMPDIR", "/tmp"}, {"MASTER_PORT", "1"}};
  const std::string why =
      ": is set by the platform for every job (the launcher and the attempt's scratch/); remove "
      "it\n";
  EXPECT_EQ(problems(request), "spec.env.TMPDIR" + why + "spec.env.MASTER_PORT" + why);
}

TEST_F(FailClosedTest, VariableNamesBashCannotAssign) {
  model::LaunchRequest request = testing::one_gpu_pool(Launcher::srun);
  request.env = {{"A-B", "x"}, {"TUNEPLANE_X", "y"}};
  EXPECT_EQ(problems(request),
            "spec.env.A-B: is not a valid variable name; use letters, digits and '_', not starting with a digit\n"
            "spec.env.TUNEPLANE_X: reserved name (TUNEPLANE_* belongs to Slurm, the container runtime or the shell); "
            "rename the variable\n");
}

TEST_F(FailClosedTest, LoaderAndLibcVariablesAndNamesOutsideTheAllowlist) {
  model::LaunchRequest request = testing::one_gpu_pool(Launcher::srun);
  request.env = {{"LD_AUDIT", "/x.so"}, {"GCONV_PATH", "/x"}, {"marks", "/"}};
  EXPECT_EQ(problems(request),
            "spec.env.LD_AUDIT: is read by the dynamic loader or the C library (LD_*); a request may not set it: "
            "remove it, or start the command with \"env\", \"LD_AUDIT=...\" to set it for the program inside the "
            "container\n"
            "spec.env.GCONV_PATH: is read by the dynamic loader or the C library (GCONV_PATH); a request may not set "
            "it: remove it, or start the command with \"env\", \"GCONV_PATH=...\" to set it for the program inside "
            "the container\n"
            "spec.env.marks: is not a name a request may set: use upper-case letters, digits and '_', starting with "
            "a letter ([A-Z][A-Z0-9_]*); rename the variable\n");
}

TEST_F(FailClosedTest, ScriptVariablesInTheEnvironment) {
  model::LaunchRequest request = testing::one_gpu_pool(Launcher::srun);
  request.env = {{"tp_image", "/other.sif"}, {"tp_mounts", "/:/host"}};
  const std::string why =
      ": reserved name (tp_* are the batch script's own variables: the image, the mounts, the evidence files); "
      "rename the variable\n";
  EXPECT_EQ(problems(request), "spec.env.tp_image" + why + "spec.env.tp_mounts" + why);
}

TEST_F(FailClosedTest, MountsOfTheProgramsTreeOrAWritableImage) {
  model::LaunchRequest request = testing::one_gpu_pool(Launcher::srun);
  request.mounts = {{"slurm/jobs/other/credentials", "/a", true}, {"runtimes/pytorch-2.5.sqsh", "/b", false}};
  EXPECT_EQ(problems(request),
            "spec.mounts[0].source \"slurm/jobs/other/credentials\": reaches slurm/ of the storage root, the "
            "program's own tree (attempt directories, credentials, other jobs); mount a directory outside it\n"
            "spec.mounts[1].source \"runtimes/pytorch-2.5.sqsh\": holds the runtime image runtimes/pytorch-2.5.sqsh, "
            "which a job may mount only read-only; set read_only: true\n");
}

TEST_F(FailClosedTest, MountThatWouldHideTheAttemptDirectory) {
  model::LaunchRequest request = testing::one_gpu_pool(Launcher::srun);
  request.mounts = {{"data", "/srv", false}};
  EXPECT_EQ(problems(request),
            "spec.mounts[0].target \"/srv\": would cover the attempt directory "
            "\"/srv/tuneplane/slurm/jobs/srun-one-pool/attempts/1\"; pick another target\n");
}

TEST_F(FailClosedTest, ProgramNameThatLooksLikeAnOption) {
  model::LaunchRequest request = testing::one_gpu_pool(Launcher::srun);
  request.command = {"--help"};
  EXPECT_EQ(problems(request),
            "spec.command[0] \"--help\": must name a program (it may not be empty or start with '-')\n");
}

TEST_F(FailClosedTest, ValuesNoDirectiveLineCanHold) {
  model::LaunchRequest request = testing::one_gpu_pool(Launcher::srun);
  request.slurm.account = "ml\nteam";
  EXPECT_EQ(problems(request),
            "spec.slurm.account \"ml\\nteam\": cannot be written as an #SBATCH option: it contains a line break\n");
}

TEST_F(FailClosedTest, IngestTokenWithoutACredentialFile) {
  model::LaunchRequest request = testing::one_gpu_pool(Launcher::srun);
  const model::Settings settings = testing::settings();
  AttemptInputs in = testing::inputs(settings, request.job_id);
  in.job_credential_path.clear();
  const auto rendered =
      render_attempt(request, *testing::runtimes().find(request.runtime_id), testing::gpu_series(), settings, in);
  ASSERT_FALSE(rendered.ok());
  EXPECT_EQ(rendered.error().to_text(),
            "credentials.ingest_token: has no credential file to copy into the attempt; write the job's credential "
            "(at submit) before rendering an attempt\n");
}

TEST_F(FailClosedTest, MissingInstance) {
  model::Settings settings = testing::settings();
  settings.instance.clear();
  EXPECT_EQ(problems(testing::one_gpu_pool(Launcher::srun), settings),
            "TUNEPLANE_INSTANCE: is empty; every job name carries the instance id (tp-<instance>-<job>-<n>)\n");
}

TEST_F(FailClosedTest, SeveralPoolsOneWithoutGpus) {
  model::LaunchRequest request = testing::two_pool_hetjob();
  request.pools[1].gpus_per_node = 0;
  request.pools[1].gpu_series.clear();
  EXPECT_EQ(problems(request),
            "spec.pools[1].gpus_per_node 0: a pool without GPUs makes this a CPU-only job, which "
            "has exactly one pool; give every pool GPUs\n");
}

}  // namespace
}  // namespace tpslurm::render
