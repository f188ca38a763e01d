#include "model/launch_request.h"

#include <gtest/gtest.h>

#include "test_catalogs.h"

namespace tpslurm::model {
namespace {

namespace json = boost::json;
using testing::cpu_only_request;
using testing::parse;
using testing::refusal;
using testing::valid_request;

json::object& spec(json::value& request) { return request.at("spec").as_object(); }
json::object& pool(json::value& request, std::size_t i) { return spec(request)["pools"].as_array()[i].as_object(); }

TEST(LaunchRequestTest, AcceptsTheDocumentedExample) {
  const auto result = parse(valid_request());
  ASSERT_TRUE(result.ok()) << result.error().to_text();
  const LaunchRequest& request = *result;
  EXPECT_EQ(request.job_id, "ft-7f3c2a");
  EXPECT_EQ(request.runtime_id, "custom-pytorch-2.5");
  EXPECT_EQ(request.command, (std::vector<std::string>{"python", "train.py", "--lr", "3e-4"}));
  ASSERT_EQ(request.pools.size(), 2u);
  EXPECT_EQ(request.pools[0].nodes, 2);
  EXPECT_EQ(request.pools[0].memory_mb, 900 * 1024);
  EXPECT_EQ(request.pools[1].gpu_series, "a100-80g");
  EXPECT_EQ(request.mounts.at(0).target, "/data");
  EXPECT_TRUE(request.mounts.at(0).read_only);
  EXPECT_EQ(request.max_attempts, 3);
  EXPECT_EQ(request.slurm.account, "ml-team");
  EXPECT_EQ(request.checkpoint_grace_seconds, 120);
  EXPECT_EQ(request.ingest_token, "tok-secret");
  EXPECT_FALSE(request.is_cpu_only());
}

TEST(LaunchRequestTest, AcceptsACpuOnlyCustomJob) {
  const auto result = parse(cpu_only_request());
  ASSERT_TRUE(result.ok()) << result.error().to_text();
  EXPECT_TRUE(result->is_cpu_only());
  EXPECT_EQ(result->pools[0].cpus, 4);
  EXPECT_EQ(result->pools[0].memory_mb, 8192);
}

TEST(LaunchRequestTest, CanonicalFormLeavesOutCredentialsAndIgnoresKeyOrder) {
  const auto a = parse(valid_request());
  json::value reordered = json::parse(R"({"credentials":{"ingest_token":"other"},"spec":{}})");
  const json::value original = valid_request();
  reordered.as_object()["type"] = original.at("type");
  reordered.as_object()["job_id"] = original.at("job_id");
  reordered.as_object()["spec"] = original.at("spec");
  const auto b = parse(reordered);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->canonical_json, b->canonical_json);
  EXPECT_EQ(a->canonical_json.find("tok-secret"), std::string::npos);
  EXPECT_EQ(a->canonical_json.find("credentials"), std::string::npos);
  EXPECT_EQ(a->canonical_json.substr(0, 30), R"({"job_id":"ft-7f3c2a","spec":{)");
}

TEST(LaunchRequestTest, EnvironmentIsSortedByName) {
  json::value request = valid_request();
  spec(request)["env"] = json::parse(R"({"ZED": "1", "ALPHA": "two words", "MID": ""})");
  const auto result = parse(request);
  ASSERT_TRUE(result.ok()) << result.error().to_text();
  EXPECT_EQ(result->env,
            (std::vector<std::pair<std::string, std::string>>{{"ALPHA", "two words"}, {"MID", ""}, {"ZED", "1"}}));
}

TEST(LaunchRequestTest, RefusesPlayground) {
  json::value request = valid_request();
  request.as_object()["type"] = "playground";
  EXPECT_EQ(refusal(request),
            "type \"playground\": Playground is not supported on Slurm: compute nodes have no inbound path from the "
            "console; run it on a fleet that supports Playground\n");
}

TEST(LaunchRequestTest, RefusesModelDeployment) {
  json::value request = valid_request();
  request.as_object()["type"] = "deployment";
  EXPECT_EQ(refusal(request),
            "type \"deployment\": Model Deployment is not supported on Slurm: compute nodes have no inbound path to "
            "serve from; deploy it on a fleet that supports deployments\n");
}

TEST(LaunchRequestTest, RefusesDataVolumes) {
  json::value request = valid_request();
  spec(request)["data"] = json::parse(R"({"volumes": [{"name": "v1"}]})");
  EXPECT_EQ(refusal(request),
            "spec.data.volumes: volumes are not supported on Slurm: the platform does not control the bind list of a "
            "SIF or SQSH image, so the mount would be empty; use spec.mounts with paths under the storage root "
            "instead\n");
}

TEST(LaunchRequestTest, AnEmptyVolumeListIsHarmless) {
  json::value request = valid_request();
  spec(request)["data"] = json::parse(R"({"volumes": []})");
  EXPECT_EQ(refusal(request), "");
}

TEST(LaunchRequestTest, RefusesAnOciImage) {
  json::value request = valid_request();
  spec(request)["framework"] = json::parse(R"({"name": "custom", "image": "nvcr.io/nvidia/pytorch:24.01-py3"})");
  EXPECT_EQ(refusal(request),
            "spec.framework.image \"nvcr.io/nvidia/pytorch:24.01-py3\": OCI images are not materialised on Slurm; "
            "publish a SQSH/SIF artifact in the runtime registry (TUNEPLANE_RUNTIME_REGISTRY_FILE) and name it in "
            "spec.framework.runtime_id\n");
}

TEST(LaunchRequestTest, RefusesAnUnknownRuntime) {
  json::value request = valid_request();
  spec(request)["framework"].as_object()["runtime_id"] = "custom-jax";
  EXPECT_EQ(refusal(request),
            "spec.framework.runtime_id \"custom-jax\": not in the runtime registry; publish it there "
            "(TUNEPLANE_RUNTIME_REGISTRY_FILE) or use one of: custom-pytorch-2.5, verl-0.4\n");
}

TEST(LaunchRequestTest, RefusesACustomRuntimeNotNamedCustom) {
  json::value request = valid_request();
  spec(request)["framework"].as_object()["runtime_id"] = "pytorch-2.5";
  EXPECT_EQ(refusal(request),
            "spec.framework.runtime_id \"pytorch-2.5\": a custom job's runtime must be named custom-…; publish the "
            "artifact as \"custom-pytorch-2.5\" in the runtime registry\n");
}

TEST(LaunchRequestTest, RefusesAFrameworkThatDoesNotMatchTheRuntime) {
  json::value request = valid_request();
  request.as_object()["type"] = "training";
  spec(request)["framework"] = json::parse(R"({"name": "deepspeed", "runtime_id": "verl-0.4"})");
  EXPECT_EQ(refusal(request),
            "spec.framework.name \"deepspeed\": runtime \"verl-0.4\" is published for framework \"verl\"; use that "
            "framework or another runtime\n");
}

TEST(LaunchRequestTest, RefusesARuntimeWithoutTheProfilesArtifact) {
  json::value request = valid_request();
  request.as_object()["type"] = "training";
  spec(request)["framework"] = json::parse(R"({"name": "verl", "runtime_id": "verl-0.4"})");
  EXPECT_EQ(refusal(request, RuntimeProfile::enroot_pyxis), "");
  EXPECT_EQ(refusal(request, RuntimeProfile::apptainer),
            "spec.framework.runtime_id \"verl-0.4\": has no sif artifact, which the apptainer runtime profile needs; "
            "publish one or set TUNEPLANE_SLURM_RUNTIME_PROFILE=enroot-pyxis\n");
}

TEST(LaunchRequestTest, RefusesAGpuSeriesWithoutConstraint) {
  json::value request = valid_request();
  pool(request, 1)["gpu_series"] = "l40s";
  pool(request, 1)["gpus_per_node"] = 4;
  EXPECT_EQ(refusal(request),
            "spec.pools[1].gpu_series \"l40s\": no slurm_constraint in the GPU series catalog; add one or pick a "
            "series that has it\n");
}

TEST(LaunchRequestTest, RefusesAnUnknownGpuSeries) {
  json::value request = valid_request();
  pool(request, 0)["gpu_series"] = "h200";
  EXPECT_EQ(refusal(request),
            "spec.pools[0].gpu_series \"h200\": not in the GPU series catalog; add it there "
            "(TUNEPLANE_GPU_SERIES_FILE) or use one of: a100-80g, h100-80g, l40s\n");
}

TEST(LaunchRequestTest, RefusesMoreGpusThanTheSeriesHas) {
  json::value request = valid_request();
  pool(request, 0)["gpus_per_node"] = 16;
  EXPECT_EQ(refusal(request),
            "spec.pools[0].gpus_per_node 16: series \"h100-80g\" has 8 GPUs per node; ask for at most that many\n");
}

TEST(LaunchRequestTest, RefusesAGpuPoolWithoutSeries) {
  json::value request = valid_request();
  pool(request, 0).erase("gpu_series");
  EXPECT_EQ(refusal(request),
            "spec.pools[0].gpu_series: is required for a pool with GPUs; name a series from the GPU series catalog "
            "(TUNEPLANE_GPU_SERIES_FILE)\n");
}

TEST(LaunchRequestTest, RefusesCpuOnlyWithSeveralPools) {
  json::value request = valid_request();
  pool(request, 1)["gpus_per_node"] = 0;
  pool(request, 1).erase("gpu_series");
  EXPECT_EQ(refusal(request),
            "spec.pools: a pool without GPUs makes this a CPU-only job, which has exactly one pool (got 2); remove "
            "the other pools or give every pool GPUs\n");
}

// Found by fuzzing: an entry that is not an object before the CPU-only pool was counted out of
// the pools, and the check then read entry 0 as that pool's object.
TEST(LaunchRequestTest, RefusesCpuOnlyBesideAnEntryThatIsNotAPool) {
  json::value request = cpu_only_request();
  json::array& pools = spec(request)["pools"].as_array();
  pools.insert(pools.begin(), json::value("custom"));
  EXPECT_EQ(refusal(request),
            "spec.pools[0] \"custom\": must be an object\n"
            "spec.pools: a pool without GPUs makes this a CPU-only job, which has exactly one pool (got 2); remove "
            "the other pools or give every pool GPUs\n");
}

TEST(LaunchRequestTest, RefusesCpuOnlyOnSeveralNodes) {
  json::value request = cpu_only_request();
  pool(request, 0)["nodes"] = 2;
  EXPECT_EQ(refusal(request),
            "spec.pools[0].nodes 2: a CPU-only job runs on exactly one node; multi-node CPU jobs are not supported "
            "on Slurm\n");
}

TEST(LaunchRequestTest, RefusesCpuOnlyWithoutCpusAndMemory) {
  json::value request = cpu_only_request();
  pool(request, 0).erase("cpus");
  pool(request, 0).erase("memory_gb");
  EXPECT_EQ(refusal(request),
            "spec.pools[0].cpus: a CPU-only job needs a positive number of CPUs\n"
            "spec.pools[0].memory_gb: a CPU-only job needs a positive amount of memory\n");
}

TEST(LaunchRequestTest, RefusesZeroCpusAndMemory) {
  json::value request = cpu_only_request();
  pool(request, 0)["cpus"] = 0;
  pool(request, 0)["memory_gb"] = 0;
  EXPECT_EQ(refusal(request),
            "spec.pools[0].cpus 0: must be a whole number from 1 to 100000\n"
            "spec.pools[0].memory_gb 0: must be a number from 0.001 to 1048576\n");
}

TEST(LaunchRequestTest, RefusesCpuOnlyThatIsNotCustomCustom) {
  json::value request = cpu_only_request();
  request.as_object()["type"] = "training";
  EXPECT_EQ(refusal(request),
            "spec.pools[0].gpus_per_node 0: CPU-only jobs must be type \"custom\" with framework \"custom\"\n");
}

TEST(LaunchRequestTest, RefusesScratch) {
  json::value request = cpu_only_request();
  pool(request, 0)["scratch_gb"] = 100;
  EXPECT_EQ(refusal(request),
            "spec.pools[0].scratch_gb 100: scratch space is not supported on Slurm; the job's temporary space is its "
            "attempt's scratch/ directory on the shared filesystem\n");
}

TEST(LaunchRequestTest, RefusesMountsThatEscapeTheStorageRoot) {
  json::value request = valid_request();
  spec(request)["mounts"] = json::parse(R"([
    {"source": "../etc", "target": "/a"},
    {"source": "/etc/passwd", "target": "/b"},
    {"source": "data/./x", "target": "/c"},
    {"source": "data,x", "target": "/d"},
    {"source": "ok", "target": "relative"},
    {"source": "ok", "target": "/e:rw"},
    {"source": "ok", "target": "/tuneplane/attempt"},
    {"source": "ok", "target": "/a"}
  ])");
  EXPECT_EQ(refusal(request),
            "spec.mounts[0].source \"../etc\": must stay inside the storage root; remove the \"..\" components\n"
            "spec.mounts[1].source \"/etc/passwd\": absolute host paths are not allowed; give a path relative to the "
            "storage root (TUNEPLANE_STORAGE_ROOT)\n"
            "spec.mounts[2].source \"data/./x\": must be written in normal form, without \"//\", \".\" components "
            "or a trailing '/' (paths are compared as written); write it as \"data/x\"\n"
            "spec.mounts[3].source \"data,x\": may hold only ASCII letters, digits, '.', '_', '-' and '/' (the "
            "container runtimes parse it on the nodes, Enroot in a shell); rename the path\n"
            "spec.mounts[4].target \"relative\": must be an absolute path inside the container\n"
            "spec.mounts[5].target \"/e:rw\": may hold only ASCII letters, digits, '.', '_', '-' and '/' (the "
            "container runtimes parse it on the nodes, Enroot in a shell); rename the path\n"
            "spec.mounts[6].target \"/tuneplane/attempt\": /tuneplane is reserved for the platform's own mounts; "
            "pick another\n"
            "spec.mounts[7].target \"/a\": is the target of an earlier mount; targets must be unique\n");
}

// A job may not mount the program's own tree (every job's attempts and credentials), the
// storage root that holds it, or a runtime image it could change.
TEST(LaunchRequestTest, RefusesMountsOfTheProgramsTreeAndWritableImages) {
  json::value request = valid_request();
  spec(request)["mounts"] = json::parse(R"([
    {"source": "slurm", "target": "/a", "read_only": true},
    {"source": "slurm/jobs/other-job/attempts/1", "target": "/b", "read_only": true},
    {"source": "runtimes", "target": "/c"},
    {"source": "runtimes/verl-0.4.sqsh", "target": "/d"},
    {"source": "runtimes", "target": "/e", "read_only": true},
    {"source": "slurmdata/x", "target": "/f"},
    {"source": "runtimes-old", "target": "/g"}
  ])");
  EXPECT_EQ(refusal(request),
            "spec.mounts[0].source \"slurm\": reaches slurm/ of the storage root, the program's own tree (attempt "
            "directories, credentials, other jobs); mount a directory outside it\n"
            "spec.mounts[1].source \"slurm/jobs/other-job/attempts/1\": reaches slurm/ of the storage root, the "
            "program's own tree (attempt directories, credentials, other jobs); mount a directory outside it\n"
            "spec.mounts[2].source \"runtimes\": holds the runtime image runtimes/pytorch-2.5.sqsh, which a job may "
            "mount only read-only; set read_only: true\n"
            "spec.mounts[3].source \"runtimes/verl-0.4.sqsh\": holds the runtime image runtimes/verl-0.4.sqsh, which "
            "a job may mount only read-only; set read_only: true\n");
}

TEST(LaunchRequestTest, RefusesTheScriptsOwnVariableNames) {
  json::value request = valid_request();
  spec(request)["env"] = json::parse(R"({"tp_image": "/other.sif", "tp_mounts": "/:/host"})");
  EXPECT_EQ(refusal(request),
            "spec.env.tp_image: reserved name (tp_* are the batch script's own variables: the image, the mounts, the "
            "evidence files); rename the variable\n"
            "spec.env.tp_mounts: reserved name (tp_* are the batch script's own variables: the image, the mounts, the "
            "evidence files); rename the variable\n");
}

TEST(LaunchRequestTest, RefusesReservedEnvironmentNames) {
  json::value request = valid_request();
  spec(request)["env"] = json::parse(R"({"SLURM_JOB_ID": "1", "LD_PRELOAD": "x", "PMIX_RANK": "0",
      "APPTAINERENV_X": "y", "BASH_FUNC_f%%": "() { :; }", "PATH": "/bin", "OK_NAME": "fine", "1BAD": "z"})");
  EXPECT_EQ(refusal(request),
            "spec.env.SLURM_JOB_ID: reserved name (SLURM_* belongs to Slurm, the container runtime or the shell); "
            "rename the variable\n"
            "spec.env.LD_PRELOAD: is read by the dynamic loader or the C library (LD_*); a request may not set it: "
            "remove it, or start the command with \"env\", \"LD_PRELOAD=...\" to set it for the program inside the "
            "container\n"
            "spec.env.PMIX_RANK: reserved name (PMI* belongs to Slurm, the container runtime or the shell); rename "
            "the variable\n"
            "spec.env.APPTAINERENV_X: reserved name (APPTAINER* belongs to Slurm, the container runtime or the "
            "shell); rename the variable\n"
            "spec.env[\"BASH_FUNC_f%%\"]: is not a valid variable name; use letters, digits and '_', not starting "
            "with a digit\n"
            "spec.env.PATH: reserved name (PATH belongs to Slurm, the container runtime or the shell); rename the "
            "variable\n"
            "spec.env.1BAD: is not a valid variable name; use letters, digits and '_', not starting with a digit\n");
}

TEST(LaunchRequestTest, RefusesEveryReservedFamily) {
  for (const char* name : {"SLURM_X",
                           "SBATCH_X",
                           "SRUN_X",
                           "SALLOC_X",
                           "PMI_RANK",
                           "PMIX_X",
                           "OMPI_X",
                           "TUNEPLANE_X",
                           "ENROOT_X",
                           "PYXIS_X",
                           "APPTAINER_X",
                           "SINGULARITYENV_X",
                           "CUDA_VISIBLE_DEVICES",
                           "NVIDIA_VISIBLE_DEVICES",
                           "BASH_ENV",
                           "ENV",
                           "PATH",
                           "HOME",
                           "IFS"}) {
    json::value request = valid_request();
    spec(request)["env"] = json::object{{name, "v"}};
    EXPECT_NE(refusal(request).find("reserved name"), std::string::npos) << name;
  }
}

// Every variable the dynamic loader or the C library reads: by family (LD_*, MALLOC_*, GLIBC_*,
// RESOLV_*), or by name. None reaches a host process; the validator refuses them all the same.
class LoaderVariableTest : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(LoaderVariableTest, IsRefusedWithTheFamilyAndTheFix) {
  const auto [name, family] = GetParam();
  json::value request = valid_request();
  spec(request)["env"] = json::object{{name, "/tmp/x.so"}};
  EXPECT_EQ(refusal(request), "spec.env." + std::string(name) + ": is read by the dynamic loader or the C library (" +
                                  family + "); a request may not set it: remove it, or start the command with \"env\", \"" +
                                  name + "=...\" to set it for the program inside the container\n");
}

INSTANTIATE_TEST_SUITE_P(
    LoaderAndLibc, LoaderVariableTest,
    ::testing::Values(std::pair{"LD_PRELOAD", "LD_*"}, std::pair{"LD_LIBRARY_PATH", "LD_*"},
                      std::pair{"LD_AUDIT", "LD_*"}, std::pair{"LD_DEBUG", "LD_*"},
                      std::pair{"LD_DEBUG_OUTPUT", "LD_*"}, std::pair{"LD_BIND_NOW", "LD_*"},
                      std::pair{"LD_BIND_NOT", "LD_*"}, std::pair{"LD_PROFILE", "LD_*"},
                      std::pair{"LD_PROFILE_OUTPUT", "LD_*"}, std::pair{"LD_SHOW_AUXV", "LD_*"},
                      std::pair{"LD_HWCAP_MASK", "LD_*"}, std::pair{"LD_ORIGIN_PATH", "LD_*"},
                      std::pair{"LD_DYNAMIC_WEAK", "LD_*"}, std::pair{"LD_ASSUME_KERNEL", "LD_*"},
                      std::pair{"LD_USE_LOAD_BIAS", "LD_*"}, std::pair{"MALLOC_CHECK_", "MALLOC_*"},
                      std::pair{"MALLOC_TRACE", "MALLOC_*"}, std::pair{"MALLOC_PERTURB_", "MALLOC_*"},
                      std::pair{"MALLOC_ARENA_MAX", "MALLOC_*"}, std::pair{"GLIBC_TUNABLES", "GLIBC_*"},
                      std::pair{"RESOLV_HOST_CONF", "RESOLV_*"}, std::pair{"RESOLV_MULTI", "RESOLV_*"},
                      std::pair{"GCONV_PATH", "GCONV_PATH"}, std::pair{"GETCONF_DIR", "GETCONF_DIR"},
                      std::pair{"HOSTALIASES", "HOSTALIASES"}, std::pair{"LOCALDOMAIN", "LOCALDOMAIN"},
                      std::pair{"LOCPATH", "LOCPATH"}, std::pair{"MUSL_LOCPATH", "MUSL_LOCPATH"},
                      std::pair{"NIS_PATH", "NIS_PATH"}, std::pair{"NLSPATH", "NLSPATH"},
                      std::pair{"RES_OPTIONS", "RES_OPTIONS"}, std::pair{"TZDIR", "TZDIR"}),
    [](const ::testing::TestParamInfo<std::pair<const char*, const char*>>& param) {
      return std::string(param.param.first);
    });

TEST(LaunchRequestTest, TmpdirFromGlibcsListIsThePlatforms) {
  json::value request = valid_request();
  spec(request)["env"] = json::object{{"TMPDIR", "/tmp"}};
  EXPECT_EQ(refusal(request),
            "spec.env.TMPDIR: is set by the platform for every job (the launcher and the attempt's scratch/); "
            "remove it\n");
}

TEST(LaunchRequestTest, EnvNamesMustBeUpperCase) {
  json::value request = valid_request();
  spec(request)["env"] = json::parse(R"({"http_proxy": "x", "Mixed_Case": "y", "_LEADING": "z", "marks": "w"})");
  const std::string shape =
      ": is not a name a request may set: use upper-case letters, digits and '_', starting with a letter "
      "([A-Z][A-Z0-9_]*); rename the variable\n";
  EXPECT_EQ(refusal(request),
            "spec.env.http_proxy" + shape + "spec.env.Mixed_Case" + shape + "spec.env._LEADING" + shape +
                "spec.env.marks" + shape);
}

// What a program inside the container may legitimately want: the allowlist's shape, and no
// loader or libc variable. Python's variables are read only by Python, which no host process of
// the job runs with the request's environment.
TEST(LaunchRequestTest, AcceptsUpperCaseNamesOfTheProgramsOwn) {
  json::value request = valid_request();
  spec(request)["env"] = json::parse(R"({"A": "1", "X1_": "2", "PYTHONPATH": "/src", "PYTHONSTARTUP": "/s.py",
      "HTTPS_PROXY": "http://proxy:3128", "NCCL_DEBUG": "INFO", "LANG": "C.UTF-8", "LDFLAGS": "-L/x"})");
  const auto result = parse(request);
  ASSERT_TRUE(result.ok()) << result.error().to_text();
  EXPECT_EQ(result->env.size(), 8u);
}

TEST(LaunchRequestTest, RefusesUnknownFieldsAtEveryLevel) {
  json::value request = valid_request();
  request.as_object()["priority"] = 5;
  spec(request)["comand"] = json::array{"x"};
  pool(request, 0)["gpu"] = 8;
  spec(request)["slurm"].as_object()["acount"] = "x";
  EXPECT_EQ(refusal(request),
            "spec.pools[0].gpu: unknown field; remove it or fix its spelling (known here: cpus, gpu_series, "
            "gpus_per_node, memory_gb, name, nodes, scratch_gb)\n"
            "spec.slurm.acount: unknown field; remove it or fix its spelling (known here: account, exclusive, qos, "
            "reservation, wckey)\n"
            "spec.comand: unknown field; remove it or fix its spelling (known here: checkpoint_grace_seconds, "
            "command, data, env, framework, mounts, partition, pools, retry, slurm, time_limit_minutes, working_dir)\n"
            "priority: unknown field; remove it or fix its spelling (known here: credentials, job_id, spec, type, user)\n");
}

TEST(LaunchRequestTest, CollectsEveryProblemNotOnlyTheFirst) {
  json::value request = valid_request();
  request.as_object()["job_id"] = "Bad_ID";
  request.as_object()["type"] = "playground";
  spec(request)["command"] = json::array{};
  pool(request, 0)["nodes"] = 0;
  request.as_object().erase("credentials");
  const auto result = parse(request);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().size(), 5u) << result.error().to_text();
}

TEST(LaunchRequestTest, RefusesBadIdsAndTypes) {
  json::value request = valid_request();
  request.as_object()["job_id"] = "-x";
  request.as_object()["type"] = "notebook";
  EXPECT_EQ(refusal(request),
            "job_id \"-x\": must match [a-z0-9][a-z0-9-]{0,62} (lower-case letters, digits and '-', at most 63)\n"
            "type \"notebook\": must be \"custom\" or \"training\"\n");
}

TEST(LaunchRequestTest, RequiresTheEssentials) {
  EXPECT_EQ(refusal(json::parse("{}")),
            "job_id: is required\ntype: is required\nspec: is required\ncredentials: is "
            "required\n");
}

TEST(LaunchRequestTest, RefusesATooLongGrace) {
  json::value request = valid_request();
  spec(request)["time_limit_minutes"] = 2;
  spec(request)["checkpoint_grace_seconds"] = 120;
  EXPECT_EQ(refusal(request),
            "spec.checkpoint_grace_seconds 120: must be shorter than the time limit (120 s); lower it or raise "
            "spec.time_limit_minutes\n");
}

TEST(LaunchRequestTest, CommandArgumentsMayBeEmptyButNotTheProgram) {
  json::value request = valid_request();
  spec(request)["command"] = json::array{"prog", "", "--x"};
  EXPECT_EQ(refusal(request), "");
  spec(request)["command"] = json::array{"", "x"};
  EXPECT_EQ(refusal(request), "spec.command[0] \"\": must not be empty\n");
}

TEST(LaunchRequestTest, RefusesNamesTheShellOrThePlatformOwn) {
  json::value request = valid_request();
  spec(request)["env"] = json::parse(R"({"BASHOPTS": "x", "SHELLOPTS": "y", "UID": "0", "MASTER_PORT": "1",
      "TMPDIR": "/tmp", "RAY_ADDRESS": "auto"})");
  const std::string shell =
      ": is a variable the shell itself uses, and the job's environment is loaded by a shell; rename the variable\n";
  const std::string platform =
      ": is set by the platform for every job (the launcher and the attempt's scratch/); remove it\n";
  EXPECT_EQ(refusal(request), "spec.env.BASHOPTS" + shell + "spec.env.SHELLOPTS" + shell + "spec.env.UID" + shell +
                                  "spec.env.MASTER_PORT" + platform + "spec.env.TMPDIR" + platform +
                                  "spec.env.RAY_ADDRESS" + platform);
}

TEST(LaunchRequestTest, RefusesAProgramNameThatLooksLikeAnOption) {
  json::value request = valid_request();
  spec(request)["command"] = json::array{"--help"};
  EXPECT_EQ(refusal(request), "spec.command[0] \"--help\": must name a program; it may not start with '-'\n");
}

TEST(LaunchRequestTest, RefusesSlurmNamesSlurmWouldSplit) {
  json::value request = valid_request();
  spec(request)["partition"] = "gpu,cpu";
  spec(request)["slurm"] = json::parse(R"({"account": "ml\nteam", "qos": "high prio", "wckey": "ok*"})");
  const std::string why =
      ": must be one Slurm name, without blanks, commas, colons, quotes, shell or control characters\n";
  EXPECT_EQ(refusal(request), "spec.partition \"gpu,cpu\"" + why + "spec.slurm.account \"ml\\nteam\"" + why +
                                  "spec.slurm.qos \"high prio\"" + why);
}

TEST(LaunchRequestTest, GpuPoolsNameTheirCpus) {
  json::value request = valid_request();
  pool(request, 1).erase("cpus");
  EXPECT_EQ(refusal(request),
            "spec.pools[1].cpus: is required; give the CPUs each node of the pool needs (one task per node gets them "
            "all)\n");
}

TEST(JobIdTest, FollowsThePattern) {
  EXPECT_TRUE(is_valid_job_id("a"));
  EXPECT_TRUE(is_valid_job_id("ft-7f3c2a"));
  EXPECT_TRUE(is_valid_job_id(std::string(63, 'a')));
  EXPECT_FALSE(is_valid_job_id(std::string(64, 'a')));
  EXPECT_FALSE(is_valid_job_id(""));
  EXPECT_FALSE(is_valid_job_id("-a"));
  EXPECT_FALSE(is_valid_job_id("A"));
  EXPECT_FALSE(is_valid_job_id("a_b"));
  EXPECT_FALSE(is_valid_job_id("a/b"));
}

}  // namespace
}  // namespace tpslurm::model
