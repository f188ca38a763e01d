// BinaryTest: the real tuneplane-slurm binary against tools/slurmrestd-sim, each test with its
// own simulator (manual clock starting now: the binary checks tokens against the real clock)
// and a token file the simulator accepts. environment(root) gives a deployment under `root`:
// state, storage with the test image, the catalogs, the simulator's URL and dialect.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "../slurm/sim_process.h"
#include "base/digest.h"
#include "support/journal_reader.h"
#include "support/run_process.h"
#include "support/temp_dir.h"

namespace tpslurm::reconcile::testing {

class BinaryTest : public ::testing::Test {
 protected:
  // Starts the simulator as `release`; the binary chooses the version (auto): v0.0.38 on
  // 22.05.8, v0.0.42 on 24.11.7, v0.0.45 on 26.05.3, which `m_dialect` names for fault paths.
  void start_sim(const std::string& release) {
    m_dialect = release == "22.05.8" ? "v0.0.38" : release == "24.11.7" ? "v0.0.42" : "v0.0.45";
    const std::string now = std::to_string(unix_seconds(SystemClock().now()));
    auto sim = slurm::testing::SimProcess::start(
        {"--manual-clock", "--clock-start", now, "--timing", "manual", "--release", release});
    ASSERT_TRUE(sim.ok()) << sim.error().message();
    m_sim = std::move(*sim);
    auto credentials = m_sim->tokens()->credentials();
    ASSERT_TRUE(credentials.ok());
    tpslurm::testing::write_test_file(m_dir.file("jwt"), "SLURM_JWT=" + credentials->token + "\n",
                                      std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    tpslurm::testing::write_test_file(m_dir.file("registry.json"),
                                      R"({"runtimes": {"custom-test": {"framework": "custom", "launcher": "srun",
          "sqsh": {"path": "runtimes/test.sqsh", "sha256": ")" +
                                          sha256_hex(kImage) + R"("}}}})");
    tpslurm::testing::write_test_file(
        m_dir.file("gpu.json"),
        R"({"series": {"h100-80g": {"slurm_constraint": "h100", "gres": "gpu", "gpus_per_node": 8}}})");
  }

  tpslurm::testing::EnvironmentMap environment(const std::string& root) {
    tpslurm::testing::write_test_file(root + "/storage/runtimes/test.sqsh", kImage);
    auto env = tpslurm::testing::minimal_environment();
    env["TUNEPLANE_STATE_DIR"] = root + "/state";
    env["TUNEPLANE_STORAGE_ROOT"] = root + "/storage";
    env["TUNEPLANE_GPU_SERIES_FILE"] = m_dir.file("gpu.json");
    env["TUNEPLANE_RUNTIME_REGISTRY_FILE"] = m_dir.file("registry.json");
    env["TUNEPLANE_INSTANCE"] = "cm";
    env["TUNEPLANE_SLURM_PARTITION"] = "gpu";
    env["TUNEPLANE_SLURM_CPU_PARTITION"] = "cpu";
    env["TUNEPLANE_SLURM_REST_URL"] = m_sim->url();
    env["TUNEPLANE_SLURM_REST_API_VERSION"] = "auto";
    env["TUNEPLANE_SLURM_REST_USER"] = "root";
    env["TUNEPLANE_SLURM_JWT_FILE"] = m_dir.file("jwt");
    env["TUNEPLANE_SLURM_CONNECT_TIMEOUT"] = "2s";
    env["TUNEPLANE_SLURM_REQUEST_TIMEOUT"] = "3s";
    env["TUNEPLANE_LOG_LEVEL"] = "warn";
    return env;
  }

  // The journal of the deployment `env` describes.
  static std::string journal_of(const tpslurm::testing::EnvironmentMap& env) {
    return env.at("TUNEPLANE_STATE_DIR") + "/journal.db";
  }

  // environment(root) for a `serve` that also answers the platform API on the unix socket
  // `socket`, with the one token `platform TOKEN`; a 60 s poll interval and info logs, so
  // that what reaches Slurm within it came from the daemon noticing, not from a cycle.
  tpslurm::testing::EnvironmentMap api_environment(const std::string& root, const std::string& socket,
                                                   const std::string& token) {
    auto env = environment(root);
    env["TUNEPLANE_POLL_INTERVAL"] = "60s";
    env["TUNEPLANE_LOG_LEVEL"] = "info";
    env["TUNEPLANE_API_LISTEN"] = "unix:" + socket;
    env["TUNEPLANE_API_TOKENS_FILE"] = m_dir.file("api-tokens");
    tpslurm::testing::write_test_file(m_dir.file("api-tokens"), "platform " + token + " read,submit,operate\n");
    return env;
  }

  // A CPU-only (or `pools`) request for `job_id`, written to `root`/requests/ (it carries an
  // ingest token: tools/secrets-scan leaves requests/ out); returns its path.
  std::string request_file(const std::string& root, const std::string& job_id, const std::string& pools = {}) {
    const std::string path = root + "/requests/" + job_id + ".json";
    tpslurm::testing::write_test_file(
        path, R"({"job_id": ")" + job_id +
                  R"(", "type": "custom", "spec": {"framework": {"name": "custom", "runtime_id": "custom-test"},
          "command": ["python", "train.py"], "pools": )" +
                  (pools.empty() ? R"([{"name": "main", "nodes": 1, "gpus_per_node": 0, "cpus": 1, "memory_gb": 1}])"
                                 : pools) +
                  R"(, "time_limit_minutes": 10}, "credentials": {"ingest_token": "tpcanary-ingest-token"}})");
    return path;
  }

  tpslurm::testing::ProcessResult cli(const tpslurm::testing::EnvironmentMap& env, std::vector<std::string> args) {
    args.insert(args.begin(), TP_BINARY);
    return tpslurm::testing::run_process(args, env);
  }

  void fault(const std::string& rule) {
    auto id = m_sim->add_fault(rule);
    ASSERT_TRUE(id.ok()) << id.error().message();
  }

  static constexpr const char* kImage = "test runtime image\n";
  std::unique_ptr<slurm::testing::SimProcess> m_sim;
  tpslurm::testing::TempDir m_dir;
  std::string m_dialect;
};

}  // namespace tpslurm::reconcile::testing
