#include "bash_syntax.h"

#include "support/run_process.h"
#include "support/temp_dir.h"

namespace tpslurm::render::testing {
namespace {

std::string syntax_errors(const char* shell, const std::string& text) {
  tpslurm::testing::TempDir dir;
  tpslurm::testing::write_test_file(dir.file("text.sh"), text);
  const auto result = tpslurm::testing::run_process({shell, "-n", dir.file("text.sh")}, {{"PATH", "/usr/bin:/bin"}});
  if (result.exit_code == 0) return "";
  return result.err.empty() ? std::string(shell) + " -n failed with status " + std::to_string(result.exit_code)
                            : result.err;
}

}  // namespace

std::string bash_syntax_errors(const std::string& script) { return syntax_errors("/bin/bash", script); }

std::string posix_sh_syntax_errors(const std::string& text) { return syntax_errors("/bin/sh", text); }

}  // namespace tpslurm::render::testing
