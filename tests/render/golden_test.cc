// Golden files pin every shape of rendered attempt: the script, the env and command files, the
// SubmitDescription and the directory layout. Set TP_UPDATE_GOLDEN=1 to rewrite them after an
// intended change (and review the diff). Every golden script must pass `bash -n` (its env and
// command files `sh -n`), and its #SBATCH lines must read back as the SubmitDescription that
// is sent.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "bash_syntax.h"
#include "render/array_job.h"
#include "render/submit_json.h"
#include "render_fixtures.h"
#include "sbatch_reader.h"
#include "support/temp_dir.h"

namespace tpslurm::render {
namespace {

using model::Launcher;
using model::RuntimeProfile;
using tpslurm::testing::read_test_file;
using tpslurm::testing::write_test_file;

struct Shape {
  const char* name;
  model::LaunchRequest (*request)();
  RuntimeProfile profile;
  bool storage_elsewhere = false;
  const char* storage_group = "";
};

model::LaunchRequest srun_pool() { return testing::one_gpu_pool(Launcher::srun); }
model::LaunchRequest ray_pool() { return testing::one_gpu_pool(Launcher::ray); }

const Shape kShapes[] = {
    {"srun-enroot-pyxis", srun_pool, RuntimeProfile::enroot_pyxis},
    {"srun-apptainer", srun_pool, RuntimeProfile::apptainer},
    {"ray-enroot-pyxis", ray_pool, RuntimeProfile::enroot_pyxis},
    {"ray-apptainer", ray_pool, RuntimeProfile::apptainer},
    {"hetjob-two-pools-ray", testing::two_pool_hetjob, RuntimeProfile::enroot_pyxis},
    {"hetjob-three-pools-srun", testing::three_pool_hetjob, RuntimeProfile::apptainer},
    {"cpu-only-enroot-pyxis", testing::cpu_only, RuntimeProfile::enroot_pyxis},
    {"cpu-only-apptainer", testing::cpu_only, RuntimeProfile::apptainer},
    {"storage-elsewhere", srun_pool, RuntimeProfile::enroot_pyxis, true},
    {"checkpoint-grace", testing::with_checkpoint_grace, RuntimeProfile::enroot_pyxis},
    {"shared-group", srun_pool, RuntimeProfile::enroot_pyxis, false, "tuneplane-jobs"},
};

model::Settings shape_settings(const Shape& shape) {
  model::Settings settings = testing::settings(shape.profile);
  if (shape.storage_elsewhere) settings.slurm_storage_root = testing::kClusterStorageRoot;
  settings.storage_group = shape.storage_group;
  return settings;
}

std::string layout_text(const RenderedAttempt& rendered) {
  const model::AttemptLayout& attempt = rendered.layout;
  char mode[8];
  std::string out = (attempt.group.empty() ? std::string() : "group " + attempt.group + "\n") + "image " +
                    attempt.image.registry_path + " local " + attempt.image.local_path + " cluster " +
                    attempt.image.cluster_path + " sha256 " + attempt.image.sha256 + "\n";
  for (const auto& dir : attempt.directories) {
    std::snprintf(mode, sizeof mode, "%04o", dir.mode);
    out += "dir  " + std::string(mode) + " " + dir.path + "\n";
  }
  for (const auto& file : attempt.files) {
    std::snprintf(mode, sizeof mode, "%04o", file.mode);
    out +=
        "file " + std::string(mode) + " " + file.path + (file.copy_from.empty() ? "" : " <- " + file.copy_from) + "\n";
  }
  for (const auto& log : attempt.logs) {
    out += "log  " + log.name + " component " + std::to_string(log.component) + " " + log.stdout_path + " " +
           log.stderr_path + "\n";
  }
  return out;
}

void expect_golden(const std::string& shape, const std::string& file, const std::string& actual) {
  const std::string path = std::string(TP_SOURCE_DIR) + "/tests/golden/" + shape + "/" + file;
  const char* update = std::getenv("TP_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") write_test_file(path, actual);
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing; run with TP_UPDATE_GOLDEN=1 to create it";
  EXPECT_EQ(read_test_file(path), actual) << "differs from " << path << " (TP_UPDATE_GOLDEN=1 rewrites it)";
}

class GoldenTest : public ::testing::TestWithParam<Shape> {};

TEST_P(GoldenTest, MatchesGoldenFiles) {
  const Shape& shape = GetParam();
  const auto rendered = testing::render(shape.request(), shape_settings(shape));
  ASSERT_TRUE(rendered.ok()) << rendered.error().to_text();
  expect_golden(shape.name, "job.sh", rendered->script);
  expect_golden(shape.name, "env", rendered->env_file);
  expect_golden(shape.name, "command", rendered->command_file);
  expect_golden(shape.name, "submit.json", submit_description_json(rendered->submit));
  expect_golden(shape.name, "layout.txt", layout_text(*rendered));
}

TEST_P(GoldenTest, ScriptPassesBashAndItsFilesPosixShSyntaxCheck) {
  const auto rendered = testing::render(GetParam().request(), shape_settings(GetParam()));
  ASSERT_TRUE(rendered.ok()) << rendered.error().to_text();
  EXPECT_EQ(testing::bash_syntax_errors(rendered->script), "");
  EXPECT_EQ(testing::posix_sh_syntax_errors(rendered->env_file), "");
  EXPECT_EQ(testing::posix_sh_syntax_errors(rendered->command_file), "");
}

TEST_P(GoldenTest, SbatchLinesAgreeWithTheSubmitDescription) {
  const auto rendered = testing::render(GetParam().request(), shape_settings(GetParam()));
  ASSERT_TRUE(rendered.ok()) << rendered.error().to_text();
  auto read_back = testing::read_sbatch_directives(rendered->script);
  ASSERT_TRUE(read_back.ok()) << read_back.error().message();
  model::SubmitDescription sent = rendered->submit;
  sent.script.clear();
  sent.environment.clear();
  EXPECT_EQ(submit_description_json(*read_back), submit_description_json(sent));
  EXPECT_EQ(*read_back, sent);
}

TEST_P(GoldenTest, RenderingIsDeterministic) {
  const auto first = testing::render(GetParam().request(), shape_settings(GetParam()));
  const auto second = testing::render(GetParam().request(), shape_settings(GetParam()));
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->script, second->script);
  EXPECT_EQ(first->env_file, second->env_file);
  EXPECT_EQ(first->command_file, second->command_file);
  EXPECT_EQ(first->submit, second->submit);
  EXPECT_EQ(first->layout, second->layout);
}

TEST_P(GoldenTest, SecretsStayOutOfScriptAndSubmitDescription) {
  const auto rendered = testing::render(GetParam().request(), shape_settings(GetParam()));
  ASSERT_TRUE(rendered.ok());
  const std::string token = *GetParam().request().ingest_token;
  EXPECT_EQ(rendered->script.find(token), std::string::npos);
  EXPECT_EQ(rendered->env_file.find(token), std::string::npos);
  EXPECT_EQ(rendered->command_file.find(token), std::string::npos);
  EXPECT_EQ(submit_description_json(rendered->submit).find(token), std::string::npos);
  for (const auto& [name, value] : rendered->submit.environment) EXPECT_EQ(value.find(token), std::string::npos);
  // The job sees where its credential is, not what it is.
  EXPECT_NE(rendered->env_file.find("TUNEPLANE_INGEST_TOKEN_FILE="), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Shapes, GoldenTest, ::testing::ValuesIn(kShapes),
                         [](const ::testing::TestParamInfo<Shape>& shape_info) {
                           std::string name = shape_info.param.name;
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

// A name used only in a section that no golden shape renders would escape the missing-name
// check; every name the templates use must be looked up by at least one shape.
TEST(GoldenCoverageTest, EveryTemplateNameIsRenderedByAShape) {
  RenderTrace trace;
  for (const Shape& shape : kShapes) {
    ASSERT_TRUE(testing::render(shape.request(), shape_settings(shape), &trace).ok()) << shape.name;
  }
  auto run = testing::render(testing::cpu_only(), testing::settings());
  ASSERT_TRUE(run.ok());
  ASSERT_TRUE(render_array(run->submit, {run->submit.tag, 2, {}}, TemplateSet::builtin(), &trace).ok());
  std::set<std::string> unused;
  for (const auto& name : TemplateSet::builtin().value_names()) {
    if (name != "." && !trace.names_looked_up.contains(name)) unused.insert(name);
  }
  for (const auto& name : TemplateSet::builtin().section_names()) {
    if (!trace.names_looked_up.contains(name)) unused.insert(name);
  }
  EXPECT_TRUE(unused.empty()) << "never rendered: " << ::testing::PrintToString(unused);
}

}  // namespace
}  // namespace tpslurm::render

namespace tpslurm::render {
namespace {

// TUNEPLANE_SLURM_JOB_PATH is the PATH of the batch script and of the REST environment alike,
// so a site whose srun lives under /opt gets its own srun in every step.
TEST(JobPathTest, TheSitesJobPathIsThePathOfTheScriptAndTheSubmit) {
  model::Settings settings = testing::settings();
  settings.job_path = "/opt/slurm-24.11/bin:/usr/bin:/bin";
  auto rendered = testing::render(testing::cpu_only(), settings);
  ASSERT_TRUE(rendered.ok());
  EXPECT_NE(rendered->script.find("export PATH=/opt/slurm-24.11/bin:/usr/bin:/bin\n"), std::string::npos);
  const auto& environment = rendered->submit.environment;
  ASSERT_FALSE(environment.empty());
  EXPECT_EQ(environment.front(), (std::pair<std::string, std::string>{"PATH", "/opt/slurm-24.11/bin:/usr/bin:/bin"}));
}

}  // namespace
}  // namespace tpslurm::render
