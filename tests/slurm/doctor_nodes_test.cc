// doctor's "GPU series" line (slurm/doctor_nodes.h) against the simulator's nodes (--features,
// --gres), on the newest REST version and on 22.05's v0.0.38 (features as one string there).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>

#include "doctor_support.h"
#include "sim_process.h"
#include "slurm/curl_transport.h"
#include "slurm/doctor.h"
#include "slurm/doctor_nodes.h"
#include "slurm/jwt.h"
#include "support/temp_dir.h"
#include "test_support.h"

namespace tpslurm::slurm {
namespace {

constexpr const char* kStep5 = " (docs/deploy.md, step 5: GPU series: GRES and node features)";

model::GpuSeriesCatalog series_catalog(const std::string& json) {
  auto parsed = model::GpuSeriesCatalog::parse(json, "gpu-series.json");
  EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.error().to_text());
  return parsed.ok() ? *parsed : model::GpuSeriesCatalog{};
}

class DoctorNodesTest : public ::testing::Test {
 protected:
  void start(std::vector<std::string> args) {
    auto started = testing::SimProcess::start(args);
    ASSERT_TRUE(started.ok()) << started.error().message();
    m_sim = std::move(*started);
    m_settings.rest_url = m_sim->url();
    m_settings.rest_user = "tuneplane";
    m_settings.partition = "debug";
    m_settings.jwt_file = m_dir.file("jwt");
    tpslurm::testing::write_test_file(
        m_settings.jwt_file,
        "SLURM_JWT=" + mint_hs256(m_sim->key(), "tuneplane", m_clock.now(), std::chrono::hours(48)) + "\n");
    ::chmod(m_settings.jwt_file.c_str(), 0600);
  }

  // The "GPU series" line of a doctor run with `catalog`, and whether the whole run passed.
  DoctorCheck run(const std::string& catalog, bool* all_passed = nullptr) {
    const model::GpuSeriesCatalog series = series_catalog(catalog);
    return testing::doctor_line(
        m_settings, "GPU series",
        [&](auto& transport) { return run_doctor(m_settings, transport, m_clock, nullptr, {}, &series); }, all_passed);
  }

  tpslurm::testing::TempDir m_dir;
  std::unique_ptr<testing::SimProcess> m_sim;
  model::Settings m_settings;
  SystemClock m_clock;
};

TEST_F(DoctorNodesTest, ASeriesWhoseFeatureAndGresTheNodesHavePasses) {
  start({"--features", "h100,cpuonly", "--gres", "gpu:h100:8(S:0-1)"});
  bool passed = false;
  const DoctorCheck line = run(R"({"series": {"h100-80g": {"slurm_constraint": "h100", "gres": "gpu:h100",
                                                          "gpus_per_node": 8},
                                              "l40s": {"gres": "gpu", "gpus_per_node": 4}}})",
                               &passed);
  EXPECT_EQ(line, (DoctorCheck{"GPU series", true,
                               "h100-80g: each has a node with its features and GRES (2 node(s))", "", false}));
  EXPECT_TRUE(passed);
}

TEST_F(DoctorNodesTest, ASeriesWhoseFeatureNoNodeHasIsAWarningNamingStep5) {
  start({"--features", "h100,cpuonly", "--gres", "gpu:h100:8"});
  bool passed = false;
  const DoctorCheck line = run(R"({"series": {"h100-80g": {"slurm_constraint": "h100", "gres": "gpu", "gpus_per_node": 8},
                                              "a100-80g": {"slurm_constraint": "a100&80g", "gres": "gpu",
                                                           "gpus_per_node": 8}}})",
                               &passed);
  EXPECT_EQ(line, (DoctorCheck{"GPU series", true,
                               "a100-80g: no node has the features a100&80g (of 2 node(s)); Slurm refuses or never "
                               "starts jobs of such a series",
                               std::string("give the series' nodes its features (Features= in slurm.conf) and GRES "
                                           "(Gres= and gres.conf), or correct the GPU series catalog") + kStep5,
                               true}));
  EXPECT_TRUE(passed) << "a warning fails nothing";
}

TEST_F(DoctorNodesTest, NodesWithTheFeatureButTooFewGpusOfTheTypeAreNamed) {
  start({"--release", "22.05.8", "--features", "h100", "--gres", "gpu:h100:1,gpu:a100:8"});
  const DoctorCheck line =
      run(R"({"series": {"h100-80g": {"slurm_constraint": "h100", "gres": "gpu:h100", "gpus_per_node": 8}}})");
  EXPECT_TRUE(line.warning);
  EXPECT_EQ(line.detail,
            "h100-80g: no node with h100 (vm, vm-b) offers GRES gpu:h100:8 (of 2 node(s)); Slurm refuses or never "
            "starts jobs of such a series");
  EXPECT_FALSE(run(R"({"series": {"any": {"slurm_constraint": "h100", "gres": "gpu", "gpus_per_node": 9}}})").warning)
      << "gpu counts every type: 1 + 8";
}

TEST_F(DoctorNodesTest, NodesThatCannotBeReadAreAWarning) {
  start({});
  tpslurm::testing::write_test_file(
      m_settings.jwt_file, "SLURM_JWT=" + mint_hs256("not-the-key", "tuneplane", m_clock.now(), std::chrono::hours(48)) +
                               "\n");
  const DoctorCheck line = run(R"({"series": {"h100-80g": {"slurm_constraint": "h100", "gpus_per_node": 8}}})");
  EXPECT_TRUE(line.ok);
  EXPECT_TRUE(line.warning);
  EXPECT_EQ(line.detail.rfind("the nodes could not be read (", 0), 0u) << line.detail;
  EXPECT_EQ(line.fix, std::string("check each series' feature and GRES with sinfo -o \"%N %f %G\"") + kStep5);
}

}  // namespace
}  // namespace tpslurm::slurm
