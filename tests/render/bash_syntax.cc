#include "bash_syntax.h"

#include "support/run_process.h"
#include "support/temp_dir.h"

namespace tpslurm::render::testing {

std::string bash_syntax_errors(const std::string& script) {
  tpslurm::testing::TempDir dir;
  tpslurm::testing::write_test_file(dir.file("job.sh"), script);
  const auto result =
      tpslurm::testing::run_process({"/bin/bash", "-n", dir.file("job.sh")}, {{"PATH", "/usr/bin:/bin"}});
  if (result.exit_code == 0) return "";
  return result.err.empty() ? "bash -n failed with status " + std::to_string(result.exit_code) : result.err;
}

}  // namespace tpslurm::render::testing
