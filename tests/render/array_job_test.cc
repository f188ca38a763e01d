// The job array a sweep's runs are submitted as (render/array_job.h): its description,
// its #SBATCH lines read back as sbatch reads them, what its script runs for each task under
// bash, and the refusals.
#include "render/array_job.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "bash_syntax.h"
#include "render/attempt_files.h"
#include "render_fixtures.h"
#include "sbatch_reader.h"
#include "support/run_process.h"
#include "support/temp_dir.h"

namespace tpslurm::render {
namespace {

using tpslurm::testing::read_test_file;
using tpslurm::testing::TempDir;
using tpslurm::testing::write_test_file;
namespace fs = std::filesystem;

const model::JobTag kArrayTag{"tp-prod-sweep-7-a1", "tuneplane:5d4c3b2a-1f0e-4d9c-8b7a-6e5f4d3c2b1a",
                              "/lustre/tuneplane/slurm/sweeps/sweep-7/arrays/1"};

model::SubmitDescription run_description(const std::string& job_id) {
  model::LaunchRequest request = testing::cpu_only();
  request.job_id = job_id;
  auto rendered = testing::render(request, testing::settings());
  EXPECT_TRUE(rendered.ok());
  return rendered.ok() ? rendered->submit : model::SubmitDescription{};
}

TEST(ArrayJobTest, TheArrayIsTheFirstRunsJobWithTheArraysTagLogsAndTasks) {
  const model::SubmitDescription run = run_description("run-0");
  auto array = render_array(run, {kArrayTag, 1000, 8});
  ASSERT_TRUE(array.ok()) << array.error().message();
  const model::SubmitDescription& submit = array->submit;
  EXPECT_EQ(submit.tag, kArrayTag);
  EXPECT_EQ(submit.array, (model::ArraySpec{0, 999, 8}));
  EXPECT_EQ(submit.standard_output, kArrayTag.working_directory + "/tasks/%a/logs/batch.out");
  EXPECT_EQ(submit.standard_error, kArrayTag.working_directory + "/tasks/%a/logs/batch.err");
  EXPECT_EQ(submit.script, array->script);
  EXPECT_EQ(submit.components, run.components);
  EXPECT_EQ(submit.environment, run.environment);
  EXPECT_EQ(submit.time_limit_minutes, run.time_limit_minutes);
  EXPECT_EQ(array_shape_difference(submit, run), std::optional<std::string>("the runs differ in their array: one "
                                                                            "job array runs one shape"));
}

TEST(ArrayJobTest, ItsSbatchLinesAskForTheSameArrayAsTheRestSubmit) {
  for (const auto& [tasks, limit] : {std::pair<std::uint32_t, std::optional<std::uint32_t>>{5, {}},
                                     std::pair<std::uint32_t, std::optional<std::uint32_t>>{5, 3},
                                     std::pair<std::uint32_t, std::optional<std::uint32_t>>{1, {}}}) {
    auto array = render_array(run_description("run-0"), {kArrayTag, tasks, limit});
    ASSERT_TRUE(array.ok()) << array.error().message();
    EXPECT_EQ(testing::bash_syntax_errors(array->script), "");
    auto read = testing::read_sbatch_directives(array->script);
    ASSERT_TRUE(read.ok()) << read.error().message();
    EXPECT_EQ(read->array, array->submit.array);
    EXPECT_EQ(read->tag, kArrayTag);
    EXPECT_EQ(read->standard_output, array->submit.standard_output);
    EXPECT_EQ(read->components, array->submit.components);
  }
}

TEST(ArrayJobTest, TheScriptHoldsNoValueOfAnyRunsRequest) {
  auto array = render_array(run_description("run-with-a-distinct-id"), {kArrayTag, 2, {}});
  ASSERT_TRUE(array.ok());
  EXPECT_EQ(array->script.find("run-with-a-distinct-id"), std::string::npos);
  EXPECT_EQ(array->script.find("TUNEPLANE_"), std::string::npos);
}

TEST(ArrayJobTest, RefusesWhatNoArrayCanBe) {
  const model::SubmitDescription run = run_description("run-0");
  EXPECT_NE(render_array(run, {kArrayTag, 0, {}}).error().message().find("at least one task"), std::string::npos);
  EXPECT_NE(render_array(run, {kArrayTag, 4, 0}).error().message().find("max_running 0"), std::string::npos);
  model::JobTag relative = kArrayTag;
  relative.working_directory = "slurm/sweeps/sweep-7/arrays/1";
  EXPECT_NE(render_array(run, {relative, 4, {}}).error().message().find("absolute"), std::string::npos);
  auto het = testing::render(testing::three_pool_hetjob(), testing::settings());
  ASSERT_TRUE(het.ok());
  EXPECT_NE(render_array(het->submit, {kArrayTag, 4, {}}).error().message().find("heterogeneous"),
            std::string::npos);
}

TEST(ArrayJobTest, RunsDifferingInWhatSlurmSchedulesCannotShareAnArray) {
  const model::SubmitDescription a = run_description("run-0");
  EXPECT_EQ(array_shape_difference(a, run_description("run-1")), std::nullopt);
  model::SubmitDescription b = a;
  b.time_limit_minutes = a.time_limit_minutes.value_or(0) + 1;
  EXPECT_NE(array_shape_difference(a, b)->find("time limit"), std::string::npos);
  b = a;
  b.components[0].memory_mb += 1;
  EXPECT_NE(array_shape_difference(a, b)->find("resources"), std::string::npos);
  b = a;
  b.unix_user = "alice";
  EXPECT_NE(array_shape_difference(a, b)->find("Unix user"), std::string::npos);
}

// Task t runs tasks/<t>/job.sh in that directory (the link's target); anything else Slurm could
// not have set runs nothing and fails as a container that never started.
class ArrayScriptRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const std::string run : {"a", "b"}) {
      fs::create_directories(root() / "attempts" / run);
      write_test_file((root() / "attempts" / run / "job.sh").string(),
                      "printf '%s %s\\n' \"$(pwd -P)\" \"$0\" > " + (root() / ("ran-" + run)).string() + "\n");
    }
    array_dir = root() / "array_dir";
    fs::create_directories(array_dir / "tasks");
    fs::create_directory_symlink(root() / "attempts" / "a", array_dir / "tasks" / "0");
    fs::create_directory_symlink(root() / "attempts" / "b", array_dir / "tasks" / "1");
    model::JobTag tag = kArrayTag;
    tag.working_directory = array_dir.string();
    auto array = render_array(run_description("run-0"), {tag, 2, {}});
    ASSERT_TRUE(array.ok());
    write_test_file((array_dir / "job.sh").string(), array->script);
  }

  tpslurm::testing::ProcessResult run_task(const std::optional<std::string>& task) {
    tpslurm::testing::EnvironmentMap env = tpslurm::testing::minimal_environment();
    if (task) env["SLURM_ARRAY_TASK_ID"] = *task;
    return tpslurm::testing::run_process({"/bin/bash", (array_dir / "job.sh").string()}, env);
  }

  fs::path root() const { return fs::path(dir.path()); }

  TempDir dir;
  fs::path array_dir;
};

TEST_F(ArrayScriptRunTest, EachTaskRunsItsOwnRunsScriptInItsOwnDirectory) {
  auto result = run_task("1");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(read_test_file((root() / "ran-b").string()), fs::canonical(root() / "attempts" / "b").string() + " ./job.sh\n");
  EXPECT_FALSE(fs::exists(root() / "ran-a"));
  result = run_task("0");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(fs::exists(root() / "ran-a"));
}

TEST_F(ArrayScriptRunTest, ATaskWithoutARunOrAnIdSlurmCouldNotHaveSetRunsNothing) {
  for (const std::optional<std::string>& task :
       {std::optional<std::string>{}, std::optional<std::string>{""}, std::optional<std::string>{"2"},
        std::optional<std::string>{"0;touch x"}, std::optional<std::string>{"../0"}, std::optional<std::string>{"-1"}}) {
    auto result = run_task(task);
    EXPECT_EQ(result.exit_code, kExitContainerSetup) << task.value_or("(unset)");
    EXPECT_NE(result.err.find("tuneplane: "), std::string::npos) << result.err;
  }
  EXPECT_FALSE(fs::exists(root() / "ran-a"));
  EXPECT_FALSE(fs::exists(root() / "ran-b"));
}

}  // namespace
}  // namespace tpslurm::render
