// What a hostile job plants in its attempt directory, made cheaply for tests: sparse files of
// any size (they cost no disk), many empty files, chains of directories deeper than PATH_MAX
// allows a path to name. Failures fail the calling test (gtest assertions).
#pragma once

#include <cstdint>
#include <string>

namespace tpslurm::testing {

// A sparse file of `size` bytes (created, or cut to that size).
void make_sparse(const std::string& path, std::uint64_t size);

// `count` empty files named <prefix><n> in the existing directory `dir`.
void make_empty_files(const std::string& dir, int count, const std::string& prefix = "f");

// A chain of `depth` directories named "d" below the existing directory `dir`, made through
// descriptors; returns the deepest one open (the caller closes it), -1 when one could not be made.
int make_chain(const std::string& dir, int depth);

}  // namespace tpslurm::testing
