#include "cli/run.h"

int main(int argc, char** argv) { return tpslurm::cli::run(argc, argv); }
