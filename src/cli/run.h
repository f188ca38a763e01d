// The command-line entry point: `tuneplane-slurm [--config FILE] COMMAND ...`.
//
// run() parses the arguments (CLI11), runs one command and returns the process exit code:
// 0 ok, 1 operational failure, 2 bad input (including bad configuration). It never throws;
// an unexpected exception is reported on stderr and is exit code 1.
#pragma once

namespace tpslurm::cli {

int run(int argc, char** argv);

}  // namespace tpslurm::cli
