// Runs a program for a test: argv, a complete environment (nothing inherited unless asked),
// optional stdin text, a time limit; returns its exit code and what it wrote to stdout and
// stderr. A program killed by the time limit or a signal has exit_code 128 + signal.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace tpslurm::testing {

struct ProcessResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

using EnvironmentMap = std::map<std::string, std::string>;

ProcessResult run_process(const std::vector<std::string>& argv, const EnvironmentMap& environment,
                          const std::string& stdin_text = "",
                          std::chrono::seconds time_limit = std::chrono::seconds(60));

// The current process's PATH/HOME/TMPDIR/LANG, a base for `environment`.
EnvironmentMap minimal_environment();

// argv and an environment as exec wants them: the strings, and null-terminated pointers into
// them (valid while the value lives).
struct ExecArguments {
  explicit ExecArguments(const std::vector<std::string>& argv, const EnvironmentMap& environment);
  ExecArguments(const ExecArguments&) = delete;
  ExecArguments& operator=(const ExecArguments&) = delete;

  std::vector<std::string> args;
  std::vector<std::string> env;
  std::vector<char*> arg_pointers;
  std::vector<char*> env_pointers;
};

}  // namespace tpslurm::testing
