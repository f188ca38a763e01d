// CliFixture: the real binary with an environment of its own — a temporary state directory
// and storage root, the example catalogs, instance "test" — as the CLI tests run it.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/run_process.h"
#include "support/temp_dir.h"

namespace tpslurm::cli {

class CliFixture : public ::testing::Test {
 protected:
  CliFixture() {
    env = testing::minimal_environment();
    env["TUNEPLANE_STATE_DIR"] = dir.file("state");
    env["TUNEPLANE_STORAGE_ROOT"] = dir.file("storage");
    env["TUNEPLANE_GPU_SERIES_FILE"] = source("etc/gpu-series.example.json");
    env["TUNEPLANE_RUNTIME_REGISTRY_FILE"] = source("etc/runtime-registry.example.json");
    env["TUNEPLANE_INSTANCE"] = "test";
  }

  static std::string source(const std::string& relative) { return std::string(TP_SOURCE_DIR) + "/" + relative; }

  testing::ProcessResult cli(std::vector<std::string> args, const std::string& stdin_text = "") {
    args.insert(args.begin(), TP_BINARY);
    return testing::run_process(args, env, stdin_text);
  }

  testing::TempDir dir;
  testing::EnvironmentMap env;
};

}  // namespace tpslurm::cli
