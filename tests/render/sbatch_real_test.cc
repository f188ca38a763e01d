// Against the real local Slurm 22.05 (tools/local-slurm; label real-slurm): a rendered
// script submitted by hand with `sbatch --hold` must become the job the SubmitDescription
// describes — sbatch reads the #SBATCH lines, slurmctld keeps what it understood. Requires the
// variables of `tools/local-slurm env`; without them the test fails (it never skips).
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <sstream>

#include "render_fixtures.h"
#include "support/run_process.h"
#include "support/temp_dir.h"

namespace tpslurm::render {
namespace {

using tpslurm::testing::run_process;
using tpslurm::testing::write_test_file;

std::string required_env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') {
    ADD_FAILURE() << "the local Slurm is not up: " << name
                  << " is not set (start it with tools/local-slurm up and export tools/local-slurm env)";
    return "";
  }
  return value;
}

// `scontrol show job -o`: one line per component, "Key=Value" words.
std::vector<std::map<std::string, std::string>> parse_jobs(const std::string& text) {
  std::vector<std::map<std::string, std::string>> jobs;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    std::map<std::string, std::string> fields;
    std::istringstream words(line);
    std::string word;
    while (words >> word) {
      const auto eq = word.find('=');
      if (eq != std::string::npos) fields[word.substr(0, eq)] = word.substr(eq + 1);
    }
    jobs.push_back(std::move(fields));
  }
  return jobs;
}

class SbatchRealTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_conf = required_env("TUNEPLANE_LOCAL_SLURM_CONF");
    m_partition = required_env("TUNEPLANE_SLURM_PARTITION");
    m_gpu_constraint = required_env("TUNEPLANE_LOCAL_SLURM_GPU_CONSTRAINT");
    m_cpu_constraint = required_env("TUNEPLANE_LOCAL_SLURM_CPU_CONSTRAINT");
    m_gres = required_env("TUNEPLANE_LOCAL_SLURM_GRES");
  }

  tpslurm::testing::EnvironmentMap slurm_env() const {
    auto env = tpslurm::testing::minimal_environment();
    env["SLURM_CONF"] = m_conf;
    return env;
  }

  // Submits `script` held, returns every component's fields, then cancels the job.
  std::vector<std::map<std::string, std::string>> submit_held(const std::string& script) {
    write_test_file(m_tmp.file("job.sh"), script);
    const auto submitted = run_process({"sbatch", "--hold", "--parsable", m_tmp.file("job.sh")}, slurm_env());
    EXPECT_EQ(submitted.exit_code, 0) << submitted.err;
    const std::string id = submitted.out.substr(0, submitted.out.find_first_not_of("0123456789"));
    if (id.empty()) return {};
    const auto shown = run_process({"scontrol", "show", "job", "-o", id}, slurm_env());
    run_process({"scancel", id}, slurm_env());
    EXPECT_EQ(shown.exit_code, 0) << shown.err;
    return parse_jobs(shown.out);
  }

  model::LaunchRequest request(int pools) const {
    model::LaunchRequest request = testing::one_gpu_pool(model::Launcher::srun);
    request.job_id = "sbatch-hetjob-check";  // "hetjob" in every path: sbatch must not split on it
    request.pools.clear();
    for (int i = 0; i < pools; ++i) request.pools.push_back({"p" + std::to_string(i), "local", 1, 1, 1, 256});
    request.time_limit_minutes = 5;
    request.checkpoint_grace_seconds = 60;
    return request;
  }

  Result<RenderedAttempt, model::Problems> render(const model::LaunchRequest& request) const {
    auto catalog = model::GpuSeriesCatalog::parse(R"({"series": {"local": {"slurm_constraint": ")" + m_gpu_constraint +
                                                      R"(", "gres": ")" + m_gres + R"(", "gpus_per_node": 1}}})",
                                                  "local");
    EXPECT_TRUE(catalog.ok());
    model::Settings settings = testing::settings();
    settings.partition = m_partition;
    settings.storage_root = m_tmp.path();
    return render_attempt(request, *testing::runtimes().find(request.runtime_id), *catalog, settings,
                          testing::inputs(settings, request.job_id));
  }

  tpslurm::testing::TempDir m_tmp;
  std::string m_conf, m_partition, m_gpu_constraint, m_cpu_constraint, m_gres;
};

TEST_F(SbatchRealTest, SbatchByHandSubmitsTheDescribedJob) {
  ASSERT_FALSE(m_conf.empty());
  const auto rendered = render(request(1));
  ASSERT_TRUE(rendered.ok()) << rendered.error().to_text();
  const auto jobs = submit_held(rendered->script);
  ASSERT_EQ(jobs.size(), 1u);
  const auto& job = jobs[0];
  const model::SubmitDescription& sent = rendered->submit;
  EXPECT_EQ(job.at("JobName"), sent.tag.name);
  EXPECT_EQ(job.at("Comment"), sent.tag.comment);
  EXPECT_EQ(job.at("WorkDir"), sent.tag.working_directory);
  EXPECT_EQ(job.at("StdOut"), sent.standard_output);
  EXPECT_EQ(job.at("Requeue"), "0");
  EXPECT_EQ(job.at("Features"), m_gpu_constraint);
  EXPECT_EQ(job.at("TimeLimit"), "00:05:00");
  EXPECT_EQ(job.at("Partition"), m_partition);
  EXPECT_EQ(job.at("MinMemoryNode"), "256M");
  EXPECT_NE(job.at("TresPerNode").find(m_gres + ":1"), std::string::npos) << job.at("TresPerNode");
}

TEST_F(SbatchRealTest, HetjobLinesBecomeComponentsWithRequeueOffOnEach) {
  ASSERT_FALSE(m_conf.empty());
  const auto rendered = render(request(2));
  ASSERT_TRUE(rendered.ok()) << rendered.error().to_text();
  // This cluster has one GPU node: component 1 goes to the CPU node (values only; the lines
  // and their structure are the renderer's).
  std::string script = rendered->script;
  const auto second = script.find("#SBATCH hetjob");
  ASSERT_NE(second, std::string::npos);
  const std::string constraint = "#SBATCH --constraint=" + m_gpu_constraint + "\n";
  const std::string gres = "#SBATCH --gres=" + rendered->submit.components[1].gres_per_node + "\n";
  script.replace(script.find(constraint, second), constraint.size(), "#SBATCH --constraint=" + m_cpu_constraint + "\n");
  script.erase(script.find(gres, second), gres.size());
  const auto jobs = submit_held(script);
  ASSERT_EQ(jobs.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(jobs[k].at("HetJobOffset"), std::to_string(k));
    EXPECT_EQ(jobs[k].at("JobName"), rendered->submit.tag.name);
    EXPECT_EQ(jobs[k].at("Comment"), rendered->submit.tag.comment);
    EXPECT_EQ(jobs[k].at("WorkDir"), rendered->submit.tag.working_directory);
    EXPECT_EQ(jobs[k].at("Requeue"), "0") << "component " << k;
  }
  EXPECT_EQ(jobs[0].at("Features"), m_gpu_constraint);
  EXPECT_EQ(jobs[1].at("Features"), m_cpu_constraint);
}

}  // namespace
}  // namespace tpslurm::render
